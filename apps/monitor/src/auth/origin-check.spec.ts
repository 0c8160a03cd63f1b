import { isSameOriginWrite } from './origin-check';

describe('isSameOriginWrite', () => {
  it.each([
    ['POST', 'monitor.lan:8080', 'http://monitor.lan:8080', undefined, true],
    ['POST', 'monitor.lan:8080', 'https://monitor.lan:8080', undefined, true],
    ['PUT', 'Monitor.LAN', 'http://monitor.lan', undefined, true],
    ['DELETE', 'monitor.lan:8080', 'http://evil.example', undefined, false],
    ['POST', 'monitor.lan:8080', 'http://monitor.lan:9090', undefined, false],
    ['POST', 'monitor.lan:8080', 'null', undefined, false],
    ['POST', 'monitor.lan:8080', undefined, 'http://monitor.lan:8080/settings', true],
    ['POST', 'monitor.lan:8080', undefined, 'http://evil.example/page', false],
    ['PATCH', 'monitor.lan:8080', 'http://monitor.lan:8080', 'http://evil.example/', true],
    ['POST', 'monitor.lan:8080', undefined, undefined, true],
    ['POST', undefined, 'http://monitor.lan', undefined, false],
    ['GET', 'monitor.lan', 'http://evil.example', undefined, true],
  ])('%s host=%s origin=%s referer=%s → %s', (method, host, origin, referer, expected) => {
    expect(isSameOriginWrite(method, host, origin, referer)).toBe(expected);
  });
});
