import { call, Headers, setupAdmin } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/**
 * A path id is the decimal number written in the path, nothing a number parser can make of it:
 * found by the API fuzzer, where `POST /api/sensors/0x10/probe` probed sensor 16.
 */
describe('path ids', () => {
  let t: TestApp;
  let admin: Headers;
  /** The 16th sensor of a fresh installation: 0x10, 1.6e1, +16. */
  const id = 16;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
    let last = 0;
    for (let i = 0; i < id; i++) {
      const res = await call<{ id: number }>(
        t,
        'POST',
        '/api/sensors',
        { name: `s${i}`, type: 'tcp', target: '127.0.0.1:9' },
        admin,
      );
      last = res.body.id;
    }
    expect(last).toBe(id);
  });

  afterAll(() => t.close());

  it('in decimal digits name the resource', async () => {
    expect((await call(t, 'GET', `/api/sensors/${id}`, undefined, admin)).status).toBe(200);
    expect((await call(t, 'GET', `/api/sensors/${id}/results`, undefined, admin)).status).toBe(200);
  });

  it.each([
    ['hexadecimal', `0x${id.toString(16)}`],
    ['exponent', `${id / 10}e1`],
    ['leading plus', `%2B${id}`],
    ['fraction', `${id}.0`],
    ['padded with spaces', `%20${id}%20`],
    ['binary', `0b${id.toString(2)}`],
  ])('spelled in %s are refused with 400 {error}', async (_, spelled) => {
    for (const path of [`/api/sensors/${spelled}`, `/api/sensors/${spelled}/results`]) {
      const res = await call(t, 'GET', path, undefined, admin);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body).toEqual({ error: expect.stringMatching(/numeric/) });
    }
  });

  // Ids are 32-bit on both backends: SQLite finds no row for a larger one, PostgreSQL must not fail on it.
  it.each(['2147483648', '99999999999999999999999', '-2147483649'])(
    'beyond the 32-bit range (%s) name nothing: 404 {error}, never a 500',
    async (spelled) => {
      for (const [method, path] of [
        ['GET', `/api/sensors/${spelled}`],
        ['GET', `/api/channels/${spelled}`],
        ['DELETE', `/api/channels/${spelled}`],
        ['DELETE', `/api/incidents/${spelled}/ack`],
      ]) {
        const res = await call(t, method, path, undefined, admin);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    },
  );

  it('refuses a probe of a sensor named in hexadecimal, so nothing is probed', async () => {
    const res = await call(t, 'POST', `/api/sensors/0x${id.toString(16)}/probe`, undefined, admin);
    expect(res.status).toBe(400);
    const results = await call<unknown[]>(t, 'GET', `/api/sensors/${id}/results`, undefined, admin);
    expect(results.body).toEqual([]);
  });
});
