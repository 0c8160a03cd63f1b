import { hostAllowed, hostOf, namedHosts, setupHostRefusal } from './setup-host';

const policy = { baseUrl: 'https://status.example.com:8443/monitor', allowedHosts: ['nas.home.arpa'] };

describe('the host of a request for first-run setup', () => {
  it.each([
    ['127.0.0.1:8080', '127.0.0.1'],
    ['[::1]:8080', '::1'],
    ['[FE80::1]', 'fe80::1'],
    ['Monitor.Example.COM.', 'monitor.example.com'],
    ['localhost:3000', 'localhost'],
    ['', ''],
  ])('hostOf(%p) is %p', (header, host) => {
    expect(hostOf(header)).toBe(host);
  });

  it.each([
    ['127.0.0.1'],
    ['10.1.2.3'],
    ['::1'],
    ['fe80::1'],
    ['localhost'],
    ['status.example.com'],
    ['nas.home.arpa'],
  ])('allows %p', (host) => {
    expect(hostAllowed(host, policy)).toBe(true);
  });

  it.each([
    ['monitor.test'],
    ['evil.example.com'],
    ['status.example.com.evil.test'],
    ['sub.localhost'],
    ['localhost.evil.test'],
    ['127.0.0.1.nip.io'],
    [''],
  ])('refuses %p', (host) => {
    expect(hostAllowed(host, policy)).toBe(false);
  });

  it('reads Host and every X-Forwarded-Host value; each must be allowed', () => {
    expect(namedHosts({ host: '127.0.0.1:80' })).toEqual(['127.0.0.1']);
    expect(namedHosts({ host: '127.0.0.1', 'x-forwarded-host': 'a.test:443, b.test' })).toEqual([
      '127.0.0.1',
      'a.test',
      'b.test',
    ]);
    expect(namedHosts({})).toEqual(['']);
    expect(setupHostRefusal(['127.0.0.1', 'status.example.com'], policy)).toBeNull();
    const refusal = setupHostRefusal(['127.0.0.1', 'monitor.test'], policy);
    expect(refusal).toContain('"monitor.test"');
    expect(refusal).toContain('allowed_hosts');
    expect(refusal).toContain('localhost');
    expect(setupHostRefusal([''], policy)).toContain('without a Host header');
  });

  it('without base_url only IP addresses, localhost and allowed names pass', () => {
    expect(hostAllowed('status.example.com', { baseUrl: '', allowedHosts: [] })).toBe(false);
    expect(hostAllowed('localhost', { baseUrl: '', allowedHosts: [] })).toBe(true);
  });
});
