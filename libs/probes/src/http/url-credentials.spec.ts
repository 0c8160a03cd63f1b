import { HttpProbe } from './http.probe';
import { liftUrlCredentials } from './url-credentials';

describe('liftUrlCredentials', () => {
  const probe = new HttpProbe();

  it.each<[string, Record<string, unknown>, ReturnType<typeof liftUrlCredentials>]>([
    ['https://example.com/health', {}, null],
    ['not a url', {}, null],
    [
      'https://ops:s%40cret%3A1@example.com:8443/health?x=1',
      { keyword: 'ok' },
      {
        target: 'https://example.com:8443/health?x=1',
        options: { keyword: 'ok', basic_auth_user: 'ops', basic_auth_password: 's@cret:1' },
      },
    ],
    ['http://ops@example.com/', {}, { target: 'http://example.com/', options: { basic_auth_user: 'ops' } }],
    [
      'http://ops:pw@example.com/',
      { headers: { Authorization: 'Bearer t' } },
      { target: 'http://example.com/', options: { headers: { Authorization: 'Bearer t' } } },
    ],
  ])('%s', (target, options, expected) => {
    const lifted = liftUrlCredentials(target, options);
    expect(lifted).toEqual(expected);
    if (lifted) expect(probe.validate(lifted.target, lifted.options)).toBeNull();
  });
});
