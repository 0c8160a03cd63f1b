import { localHealthUrl } from './healthcheck.command';

describe('localHealthUrl', () => {
  it.each([
    [{ host: '0.0.0.0', port: 8080 }, 'http://127.0.0.1:8080/healthz'],
    [{ host: '::', port: 8080 }, 'http://[::1]:8080/healthz'],
    [{ host: '127.0.0.1', port: 9000 }, 'http://127.0.0.1:9000/healthz'],
    [{ host: '::1', port: 9000 }, 'http://[::1]:9000/healthz'],
    [{ host: 'monitor.lan', port: 80 }, 'http://monitor.lan:80/healthz'],
  ])('%p → %s', (listen, url) => {
    expect(localHealthUrl(listen)).toBe(url);
  });
});
