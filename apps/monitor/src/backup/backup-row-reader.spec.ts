import { sequenceByName } from './backup-format';
import { readAccount, readSensor, readSite } from './backup-row-reader';

describe('rows', () => {
  it('numbers entries that share a name in the order given', () => {
    const items = [{ n: 'a' }, { n: 'b' }, { n: 'a' }];
    expect([...sequenceByName(items, (i) => i.n).values()]).toEqual([1, 1, 2]);
  });

  it('reads a sensor with defaults and references by name or by {name, seq}', () => {
    expect(
      readSensor(0, {
        name: ' web ',
        type: 'http',
        target: 'https://example.com',
        parent: { name: 'router', seq: 2 },
        channels: ['ops', { name: 'ops', seq: 2 }],
      }),
    ).toEqual({
      name: 'web',
      seq: 1,
      type: 'http',
      target: 'https://example.com',
      interval: 60,
      retries: 3,
      reminder_every: 0,
      group: '',
      tags: [],
      site: '',
      parent: { name: 'router', seq: 2 },
      enabled: true,
      options: {},
      channels: ['ops', { name: 'ops', seq: 2 }],
      sort_order: 0,
      sample: false,
    });
  });

  it.each([
    [{ interval: 0 }, /interval must be an integer from 1 to 86400/],
    [{ parent: 'web' }, /own parent/],
    [{ channels: [3] }, /channels must be a name/],
    [{ status: 'up' }, /unknown field "status"/],
    [{ target: '' }, /target must not be empty/],
  ])('refuses a sensor with %p, naming table, row and sensor', (change, error) => {
    const row = { name: 'web', type: 'http', target: 'https://example.com', ...change };
    expect(() => readSensor(3, row)).toThrow(error);
    expect(() => readSensor(3, row)).toThrow(/^sensors row 3 \("web"\): /);
  });

  it('checks accounts without echoing their secrets', () => {
    const hash = `$2b$12$${'a'.repeat(53)}`;
    const account = { username: 'ann', role: 'admin', password_hash: hash, totp_secret: 'JBSWY3DPEHPK3PXP' };
    expect(readAccount(0, account)).toMatchObject({
      username: 'ann',
      totp_enabled: false,
      recovery_codes: [],
    });
    for (const [change, error] of [
      [{ password_hash: 'plain text password' }, /password_hash must be a bcrypt hash/],
      [{ totp_enabled: true, totp_secret: null }, /totp_enabled needs a totp_secret/],
      [{ recovery_codes: [{ code_hash: 'abc' }] }, /recovery_codes\[0\]/],
      [{ role: 'root' }, /role must be one of/],
      [{ username: 'a b' }, /username/],
      // A 32-bit integer on PostgreSQL.
      [{ token_epoch: 2_147_483_648 }, /token_epoch must be an integer/],
    ] as const) {
      const refused = () => readAccount(1, { ...account, ...change });
      expect(refused).toThrow(error);
      try {
        refused();
      } catch (e) {
        expect((e as Error).message).not.toContain('plain text password');
      }
    }
  });

  it('refuses a site with only one coordinate', () => {
    expect(() => readSite(0, { name: 'Berlin', lat: 52.5 })).toThrow(/lat and lon must both be given/);
    expect(readSite(1, { name: 'Lagos', lat: 0, lon: 0 })).toMatchObject({ lat: 0, lon: 0, kind: 'local' });
  });
});
