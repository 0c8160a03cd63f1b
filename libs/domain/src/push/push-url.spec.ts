import { pushUrl } from './push-url';

describe('push URL', () => {
  it.each([
    ['https://mon.example', 'https://mon.example/api/push/tok'],
    ['https://mon.example/', 'https://mon.example/api/push/tok'],
    ['https://example.com/monitor', 'https://example.com/monitor/api/push/tok'],
    ['', undefined],
  ])('from base_url %p', (base, expected) => {
    expect(pushUrl(base, 'tok')).toBe(expected);
  });
});
