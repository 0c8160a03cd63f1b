import type { SiteDetail, SitesResponse, Summary } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { createSensor, getSensor, record, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const sensorBody = (name: string, site: string) => ({
  name,
  type: 'http',
  target: 'http://127.0.0.1:9/',
  site,
});

const path = (name: string) => `/api/sites/${encodeURIComponent(name)}`;

describe('sites: the API', () => {
  let t: TestApp;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;

  const list = async () => (await call<SitesResponse>(t, 'GET', '/api/sites', undefined, viewer)).body;
  const site = async (name: string) => (await list()).sites.find((s) => s.name === name);
  const create = (body: Record<string, unknown>) =>
    call<SiteDetail & { error: string }>(t, 'POST', '/api/sites', body, admin);
  const update = (name: string, body: Record<string, unknown>) =>
    call<SiteDetail & { error: string }>(t, 'PUT', path(name), body, admin);
  const remove = (name: string, query = '') =>
    call<{ deleted: string; unassigned: boolean; error: string }>(
      t,
      'DELETE',
      `${path(name)}${query}`,
      undefined,
      admin,
    );

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false, clock: new MutableClock() });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
  });

  afterAll(async () => {
    await t.close();
  });

  it('GET /api/sites (viewer) answers no sites, the two kinds and the default map settings', async () => {
    const res = await call<SitesResponse>(t, 'GET', '/api/sites', undefined, viewer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sites: [],
      kinds: ['local', 'external'],
      map: { tile_url: '', attribution: '', borders: 'on' },
    });
  });

  describe('POST /api/sites', () => {
    it('creates a site: 201 with it; kind defaults to local when omitted', async () => {
      const res = await create({ name: 'Berlin' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        name: 'Berlin',
        kind: 'local',
        lat: null,
        lon: null,
        sensor_count: 0,
        managed_by: null,
      });
      expect(await site('Berlin')).toEqual(res.body);
    });

    it("kind '' means local; external is accepted", async () => {
      expect((await create({ name: 'Empty kind', kind: '' })).body.kind).toBe('local');
      expect((await create({ name: 'Cloud', kind: 'external' })).body.kind).toBe('external');
      expect(await sql(t, "SELECT kind FROM sites WHERE name = 'Empty kind'")).toEqual([{ kind: 'local' }]);
    });

    it('trims the name', async () => {
      const res = await create({ name: '  Paris  ' });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('Paris');
    });

    it('0 is a real coordinate: lat 0 and lon 0 are stored as such', async () => {
      const res = await create({ name: 'Null Island', lat: 0, lon: 0 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ lat: 0, lon: 0 });
      expect(await sql(t, "SELECT lat, lon FROM sites WHERE name = 'Null Island'")).toEqual([
        { lat: 0, lon: 0 },
      ]);
    });

    it('lat and lon both null are the same as both absent', async () => {
      const res = await create({ name: 'Nowhere', lat: null, lon: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ lat: null, lon: null });
    });

    it('accepts the range bounds', async () => {
      const a = await create({ name: 'North-West', lat: 90, lon: -180 });
      const b = await create({ name: 'South-East', lat: -90, lon: 180 });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body).toMatchObject({ lat: -90, lon: 180 });
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['lat without lon', { lat: 52.5 }, /lat and lon go together/],
      ['lon without lat', { lon: 13.4 }, /lat and lon go together/],
      ['lat 0 without lon', { lat: 0 }, /lat and lon go together/],
      ['lat with lon null', { lat: 52.5, lon: null }, /lat and lon go together/],
      ['lat above 90', { lat: 90.0001, lon: 0 }, /^lat must be a number from -90 to 90/],
      ['lat below -90', { lat: -91, lon: 0 }, /^lat must be a number/],
      ['lon above 180', { lat: 0, lon: 180.5 }, /^lon must be a number from -180 to 180/],
      ['lon below -180', { lat: 0, lon: -181 }, /^lon must be a number/],
      ['lat a string', { lat: '52.5', lon: 13.4 }, /^lat must be a number/],
      ['no name', { name: undefined }, /^name is required/],
      ['name null', { name: null }, /^name is required/],
      ['an empty name', { name: '' }, /^name must not be empty/],
      ['a blank name', { name: '   ' }, /^name must not be empty/],
      ['a name of 101 characters', { name: 'x'.repeat(101) }, /^name must be at most 100 characters/],
      ['a name that is not a string', { name: 7 }, /^name must be a string/],
      ['another kind', { kind: 'remote' }, /^kind must be local or external/],
      ['kind null', { kind: null }, /^kind must be local or external/],
      ['an unknown field', { colour: 'red' }, /^unknown field "colour"/],
    ])('%s is a 400 naming the field, and stores nothing', async (_name, change, message) => {
      const before = await list();
      const res = await create({ name: 'Refused', ...change });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
      expect(await list()).toEqual(before);
    });

    it('a name of 100 characters is accepted', async () => {
      const name = 'y'.repeat(100);
      expect((await create({ name })).status).toBe(201);
      expect((await remove(name)).status).toBe(200);
    });

    it('a duplicate name is a 409 naming it', async () => {
      const res = await create({ name: 'Berlin', kind: 'external' });
      expect(res.status).toBe(409);
      expect(res.body.error).toContain('"Berlin"');
      expect(await sql(t, "SELECT kind FROM sites WHERE name = 'Berlin'")).toEqual([{ kind: 'local' }]);
    });

    it('read-only fields from a GET answer are accepted and ignored', async () => {
      const res = await create({ name: 'Copy', sensor_count: 9, managed_by: 'config' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ sensor_count: 0, managed_by: null });
    });
  });

  it('GET lists the sites sorted by name', async () => {
    const names = (await list()).sites.map((s) => s.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(names).toEqual(expect.arrayContaining(['Berlin', 'Cloud', 'Null Island', 'Paris']));
  });

  describe('PUT /api/sites/{name}', () => {
    beforeAll(async () => {
      await create({ name: 'Hamburg', lat: 53.55, lon: 10 });
    });

    it('changes the kind and keeps absent fields', async () => {
      const res = await update('Hamburg', { kind: 'external' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Hamburg', kind: 'external', lat: 53.55, lon: 10 });
      expect((await update('Hamburg', { kind: '' })).body.kind).toBe('local');
    });

    it('moves the site with lat and lon, to 0 and 0 as well', async () => {
      expect((await update('Hamburg', { lat: 53.6, lon: 9.99 })).body).toMatchObject({
        lat: 53.6,
        lon: 9.99,
      });
      expect((await update('Hamburg', { lat: 0, lon: 0 })).body).toMatchObject({ lat: 0, lon: 0 });
      expect(await sql(t, "SELECT lat, lon FROM sites WHERE name = 'Hamburg'")).toEqual([{ lat: 0, lon: 0 }]);
    });

    it('both null clear the coordinates', async () => {
      const res = await update('Hamburg', { lat: null, lon: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ lat: null, lon: null });
    });

    it('an empty body changes nothing', async () => {
      const before = await site('Hamburg');
      const res = await update('Hamburg', {});
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['lat alone', { lat: 1 }, /lat and lon go together/],
      ['lon alone', { lon: 1 }, /lat and lon go together/],
      ['lat null alone', { lat: null }, /lat and lon go together/],
      ['lat with lon null', { lat: 1, lon: null }, /lat and lon go together/],
      ['lat out of range', { lat: -90.5, lon: 1 }, /^lat must be a number/],
      ['lon out of range', { lat: 1, lon: 181 }, /^lon must be a number/],
      ['another kind', { kind: 'remote' }, /^kind must be local or external/],
      ['an empty name', { name: ' ' }, /^name must not be empty/],
      ['a name too long', { name: 'z'.repeat(101) }, /^name must be at most 100 characters/],
      ['name null', { name: null }, /^name must be a string/],
      ['an unknown field', { city: 'x' }, /^unknown field "city"/],
    ])('%s is a 400 and changes nothing', async (_name, body, message) => {
      const before = await site('Hamburg');
      const res = await update('Hamburg', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
      expect(await site('Hamburg')).toEqual(before);
    });

    it('an unknown site is a 404', async () => {
      const res = await update('Atlantis', { kind: 'local' });
      expect(res.status).toBe(404);
      expect(res.body.error).toContain('Atlantis');
    });

    it('renaming to an existing name is a 409 naming it, and changes nothing', async () => {
      const res = await update('Hamburg', { name: 'Berlin' });
      expect(res.status).toBe(409);
      expect(res.body.error).toContain('"Berlin"');
      expect(await site('Hamburg')).toBeDefined();
    });

    it('renaming to its own name is no conflict', async () => {
      expect((await update('Hamburg', { name: 'Hamburg' })).status).toBe(200);
    });

    it('a URL-encoded name with spaces and a slash is found', async () => {
      expect((await create({ name: 'Rack A/B 2' })).status).toBe(201);
      const res = await update('Rack A/B 2', { kind: 'external' });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Rack A/B 2');
    });
  });

  describe('a rename carries into the sensors', () => {
    it('every sensor of the site shows the new name, in GET /api/sensors/{id} and /api/summary', async () => {
      await create({ name: 'Munich', lat: 48.1, lon: 11.6 });
      const a = await createSensor(t, admin, sensorBody('munich web', 'Munich'));
      const b = await createSensor(t, admin, sensorBody('munich dns', 'Munich'));
      const other = await createSensor(t, admin, sensorBody('berlin web', 'Berlin'));
      // The sensor list is read (and cached) before the rename.
      expect((await call<Summary>(t, 'GET', '/api/summary', undefined, viewer)).status).toBe(200);
      const events = record(t, 'sensor');
      try {
        const res = await update('Munich', { name: 'München', lat: 48.14, lon: 11.58 });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          name: 'München',
          kind: 'local',
          lat: 48.14,
          lon: 11.58,
          sensor_count: 2,
          managed_by: null,
        });
        expect(events.events).toEqual(
          expect.arrayContaining([
            { id: a.id, action: 'updated' },
            { id: b.id, action: 'updated' },
          ]),
        );
        expect(events.events.map((e) => e.id)).not.toContain(other.id);
      } finally {
        events.stop();
      }
      expect((await getSensor(t, viewer, a.id)).site).toBe('München');
      expect((await getSensor(t, viewer, b.id)).site).toBe('München');
      expect((await getSensor(t, viewer, other.id)).site).toBe('Berlin');
      const summary = (await call<Summary>(t, 'GET', '/api/summary', undefined, viewer)).body;
      const byId = new Map(summary.sensors.map((s) => [s.id, s.site]));
      expect([byId.get(a.id), byId.get(b.id), byId.get(other.id)]).toEqual(['München', 'München', 'Berlin']);
      expect(summary.sites.map((s) => s.name)).toContain('München');
      expect(summary.sites.map((s) => s.name)).not.toContain('Munich');
      expect(summary.sites.find((s) => s.name === 'München')?.sensor_count).toBe(2);
      // The old name no longer exists for sensors either.
      const put = await call<{ error: string }>(
        t,
        'PUT',
        `/api/sensors/${other.id}`,
        { site: 'Munich' },
        admin,
      );
      expect(put.status).toBe(400);
      expect((await call(t, 'PUT', `/api/sensors/${other.id}`, { site: 'München' }, admin)).status).toBe(200);
      expect((await site('München'))?.sensor_count).toBe(3);
    });
  });

  describe('DELETE /api/sites/{name}', () => {
    it('a site without sensors is deleted: {deleted, unassigned: false}', async () => {
      await create({ name: 'Empty' });
      const res = await remove('Empty');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: 'Empty', unassigned: false });
      expect(await site('Empty')).toBeUndefined();
    });

    it('a site with sensors is a 409 naming the site and the count, and nothing changes', async () => {
      const res = await remove('München');
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(
        'site "München" still has 3 sensors; delete with unassign=1 to leave them without a site',
      );
      expect((await site('München'))?.sensor_count).toBe(3);
    });

    it.each(['0', 'yes', '', 'true'])('unassign=%s is a 400', async (value) => {
      const res = await remove('München', `?unassign=${value}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^unassign must be 1/);
      expect(await site('München')).toBeDefined();
    });

    it('unassign=1 deletes it and leaves its sensors without a site', async () => {
      const ids = (
        await sql<{ id: number }>(
          t,
          "SELECT id FROM sensors WHERE name LIKE 'munich%' OR name = 'berlin web'",
        )
      ).map((r) => r.id);
      const events = record(t, 'sensor');
      const res = await remove('München', '?unassign=1');
      events.stop();
      expect(events.events.map((e) => e.id).sort()).toEqual([...ids].sort());
      expect(events.events.every((e) => e.action === 'updated')).toBe(true);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: 'München', unassigned: true });
      expect(await site('München')).toBeUndefined();
      for (const id of ids) expect((await getSensor(t, viewer, id)).site).toBe('');
      expect(
        await sql(
          t,
          `SELECT count(*) AS n FROM sensors WHERE site_id IS NOT NULL AND id IN (${ids.join(',')})`,
        ),
      ).toEqual([{ n: 0 }]);
      const summary = (await call<Summary>(t, 'GET', '/api/summary', undefined, viewer)).body;
      expect(summary.sensors.filter((s) => ids.includes(s.id)).map((s) => s.site)).toEqual(['', '', '']);
    });

    it('an unknown site is a 404', async () => {
      expect((await remove('Atlantis')).status).toBe(404);
    });
  });

  describe('a site declared in the configuration file', () => {
    beforeAll(async () => {
      await create({ name: 'Declared', lat: 1, lon: 2 });
      await sql(t, "UPDATE sites SET managed_by = 'config' WHERE name = 'Declared'");
      await createSensor(t, admin, sensorBody('declared web', 'Declared'));
    });

    it('is listed with managed_by', async () => {
      expect(await site('Declared')).toMatchObject({ managed_by: 'config', sensor_count: 1 });
    });

    it.each<[string, Record<string, unknown>]>([
      ['a rename', { name: 'Renamed' }],
      ['a move', { lat: 3, lon: 4 }],
      ['a kind change', { kind: 'external' }],
    ])('%s is a 409', async (_name, body) => {
      const res = await update('Declared', body);
      expect(res.status).toBe(409);
      expect(res.body.error).toContain('site "Declared" is declared in the configuration file');
      expect(await site('Declared')).toMatchObject({ name: 'Declared', kind: 'local', lat: 1, lon: 2 });
    });

    it.each(['', '?unassign=1'])('DELETE%s is a 409', async (query) => {
      const res = await remove('Declared', query);
      expect(res.status).toBe(409);
      expect(res.body.error).toContain('site "Declared" is declared in the configuration file');
      expect(await site('Declared')).toMatchObject({ sensor_count: 1 });
    });
  });

  describe('roles', () => {
    it('every role reads the sites', async () => {
      for (const who of [viewer, operator, admin])
        expect((await call(t, 'GET', '/api/sites', undefined, who)).status).toBe(200);
    });

    it.each<[string, string, string, Record<string, unknown> | undefined]>([
      ['POST', '/api/sites', 'viewer', { name: 'Viewer site' }],
      ['POST', '/api/sites', 'operator', { name: 'Operator site' }],
      ['PUT', '/api/sites/Berlin', 'viewer', { kind: 'external' }],
      ['PUT', '/api/sites/Berlin', 'operator', { kind: 'external' }],
      ['DELETE', '/api/sites/Paris', 'viewer', undefined],
      ['DELETE', '/api/sites/Paris', 'operator', undefined],
    ])('%s %s as %s is a 403 and changes nothing', async (method, url, who, body) => {
      const before = await list();
      const res = await call(t, method, url, body, who === 'viewer' ? viewer : operator);
      expect(res.status).toBe(403);
      expect(await list()).toEqual(before);
    });
  });
});
