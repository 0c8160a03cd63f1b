import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { MapSettings, SitesResponse } from '@monitor/contracts';
import { accountWithRole, ADMIN, call, Headers, setupAdmin, signIn } from './support/http';
import { record, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const BASE_IMG_SRC = "img-src 'self' data: blob:";

/** The Content-Security-Policy of a response to `url`, split into directives. */
async function policyOf(t: TestApp, url = '/api/version'): Promise<string[]> {
  const res = await t.request(url);
  return (res.headers.get('content-security-policy') ?? '').split('; ');
}

const imgSrc = (directives: string[]) => directives.find((d) => d.startsWith('img-src '));

describe('map settings: PUT /api/map', () => {
  let t: TestApp;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;

  const save = (body: Record<string, unknown>) =>
    call<MapSettings & { error: string }>(t, 'PUT', '/api/map', body, admin);
  const stored = async () => (await call<SitesResponse>(t, 'GET', '/api/sites', undefined, viewer)).body.map;

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
  });

  afterAll(async () => {
    await t.close();
  });

  it('defaults: no tile URL, no attribution, borders on; GET /api/sites shows them to every role', async () => {
    for (const who of [viewer, operator, admin]) {
      const res = await call<SitesResponse>(t, 'GET', '/api/sites', undefined, who);
      expect(res.body.map).toEqual({ tile_url: '', attribution: '', borders: 'on' });
    }
  });

  it('saves the three fields and answers them; GET /api/sites shows them; a settings event goes out', async () => {
    const events = record(t, 'settings');
    const body = {
      tile_url: 'https://tiles.example.org/{z}/{x}/{y}.png',
      attribution: '© Example contributors',
      borders: 'off',
    };
    const res = await save(body);
    events.stop();
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect(await stored()).toEqual(body);
    expect(events.events).toHaveLength(1);
    const [row] = await sql<{ value: string }>(t, "SELECT value FROM settings WHERE key = 'map'");
    expect(JSON.parse(row.value)).toEqual(body);
  });

  it('omitted fields keep their stored values', async () => {
    const before = await stored();
    expect((await save({ borders: 'on' })).body).toEqual({ ...before, borders: 'on' });
    expect((await save({ attribution: 'Tiles: Example' })).body).toEqual({
      ...before,
      borders: 'on',
      attribution: 'Tiles: Example',
    });
    expect((await save({})).body).toEqual(await stored());
    expect((await stored()).tile_url).toBe(before.tile_url);
  });

  it.each([
    'https://{s}.tile.example.org/{z}/{x}/{y}.png',
    'http://tiles.example.org:8080/{z}/{x}/{y}.png?key=abc',
    'https://tiles.example.org/{z}/{y}/{x}@2x.png',
    'https://tiles.example.org/{s}/{z}/{x}/{y}',
  ])('accepts %s', async (tile_url) => {
    const res = await save({ tile_url });
    expect(res.status).toBe(200);
    expect(res.body.tile_url).toBe(tile_url);
  });

  it("accepts '' without validation: no tiles", async () => {
    const res = await save({ tile_url: '' });
    expect(res.status).toBe(200);
    expect((await stored()).tile_url).toBe('');
  });

  it.each<[string, unknown, RegExp]>([
    ['an ftp URL', 'ftp://tiles.example.org/{z}/{x}/{y}.png', /^tile_url must be an http or https URL/],
    ['a file URL', 'file:///tiles/{z}/{x}/{y}.png', /^tile_url must be an http or https URL/],
    [
      'no {z}',
      'https://tiles.example.org/{x}/{y}.png',
      /^tile_url must contain \{z\}, \{x\} and \{y\} \(missing \{z\}\)/,
    ],
    ['no {x}', 'https://tiles.example.org/{z}/{y}.png', /missing \{x\}/],
    ['no {y}', 'https://tiles.example.org/{z}/{x}.png', /missing \{y\}/],
    ['no placeholders', 'https://tiles.example.org/tile.png', /missing \{z\}, \{x\}, \{y\}/],
    ['not a URL', 'tiles/{z}/{x}/{y}.png', /^tile_url must be an http or https URL/],
    [
      '{z} in the host',
      'https://{z}.tiles.example.org/{x}/{y}.png',
      /^tile_url: only \{s\} may appear in the host/,
    ],
    ['a number', 42, /^tile_url must be a string/],
    ['null', null, /^tile_url must be a string/],
    [
      'over 2000 characters',
      `https://t.example.org/{z}/{x}/{y}?${'a'.repeat(2000)}`,
      /^tile_url must be at most/,
    ],
  ])(
    'refuses %s with a 400 naming tile_url, and keeps the stored value',
    async (_name, tile_url, message) => {
      await save({ tile_url: 'https://kept.example.org/{z}/{x}/{y}.png' });
      const res = await save({ tile_url });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
      expect((await stored()).tile_url).toBe('https://kept.example.org/{z}/{x}/{y}.png');
    },
  );

  it.each(['on', 'off'])('borders %s is accepted', async (borders) => {
    expect((await save({ borders })).body.borders).toBe(borders);
    expect((await stored()).borders).toBe(borders);
  });

  it.each<[unknown]>([['maybe'], [''], ['ON'], [true], [null]])('borders %p is a 400', async (borders) => {
    const before = await stored();
    const res = await save({ borders });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('borders must be on or off');
    expect(await stored()).toEqual(before);
  });

  it('attribution: up to 500 characters of text; longer or not a string is a 400', async () => {
    expect((await save({ attribution: 'a'.repeat(500) })).status).toBe(200);
    const long = await save({ attribution: 'a'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/^attribution must be at most 500 characters/);
    const number = await save({ attribution: 5 });
    expect(number.status).toBe(400);
    expect(number.body.error).toMatch(/^attribution/);
  });

  it('an unknown field is a 400 naming it, and nothing is stored', async () => {
    const before = await stored();
    const res = await save({ borders: 'off', zoom: 3 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unknown field "zoom"');
    expect(await stored()).toEqual(before);
  });

  it('viewers and operators may not change it (403)', async () => {
    const before = await stored();
    for (const who of [viewer, operator]) {
      const res = await call(t, 'PUT', '/api/map', { borders: 'off', tile_url: '' }, who);
      expect(res.status).toBe(403);
    }
    expect(await stored()).toEqual(before);
  });
});

describe('map settings: the content security policy', () => {
  let dataDir: string;
  let t: TestApp;
  let admin: Headers;

  const save = async (tile_url: string) => {
    const res = await call(t, 'PUT', '/api/map', { tile_url }, admin);
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-map-'));
    t = await startTestApp({ startScheduler: false, dataDir });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('before any tile URL is saved it names no third party', async () => {
    for (const url of ['/api/version', '/', '/api/no-such-thing']) {
      const directives = await policyOf(t, url);
      expect(imgSrc(directives)).toBe(BASE_IMG_SRC);
      expect(directives.join('; ')).not.toMatch(/https?:/);
    }
  });

  it('a third-party tile URL adds its origin to img-src, and only there, at once', async () => {
    await save('https://tiles.example.org:8443/styles/{z}/{x}/{y}.png?key=secret');
    const directives = await policyOf(t);
    expect(imgSrc(directives)).toBe(`${BASE_IMG_SRC} https://tiles.example.org:8443`);
    expect(directives.filter((d) => d.includes('tiles.example.org'))).toHaveLength(1);
    expect(directives.join('; ')).not.toContain('secret');
    expect(imgSrc(await policyOf(t, '/'))).toBe(`${BASE_IMG_SRC} https://tiles.example.org:8443`);
  });

  it('with {s} the origins of a, b and c are added', async () => {
    await save('https://{s}.tile.example.org/{z}/{x}/{y}.png');
    expect(imgSrc(await policyOf(t))).toBe(
      `${BASE_IMG_SRC} https://a.tile.example.org https://b.tile.example.org https://c.tile.example.org`,
    );
  });

  it('a default port is left out of the origin', async () => {
    await save('http://tiles.example.org:80/{z}/{x}/{y}.png');
    expect(imgSrc(await policyOf(t))).toBe(`${BASE_IMG_SRC} http://tiles.example.org`);
  });

  it('a same-origin tile URL adds nothing', async () => {
    await save(`${t.url}/tiles/{z}/{x}/{y}.png`);
    expect(imgSrc(await policyOf(t))).toBe(BASE_IMG_SRC);
  });

  it('the same host on another port is another origin', async () => {
    const other = `http://127.0.0.1:${new URL(t.url).port === '1' ? 2 : 1}`;
    await save(`${other}/tiles/{z}/{x}/{y}.png`);
    expect(imgSrc(await policyOf(t))).toBe(`${BASE_IMG_SRC} ${other}`);
  });

  it('clearing the tile URL names no third party again', async () => {
    await save('https://tiles.example.org/{z}/{x}/{y}.png');
    expect(imgSrc(await policyOf(t))).toContain('https://tiles.example.org');
    await save('');
    const directives = await policyOf(t);
    expect(imgSrc(directives)).toBe(BASE_IMG_SRC);
    expect(directives.join('; ')).not.toMatch(/https?:/);
  });

  it('after a restart the saved origin is in the policy from the first request', async () => {
    await save('https://{s}.restart.example.net/{z}/{x}/{y}.png');
    await t.close();
    t = await startTestApp({ startScheduler: false, dataDir });
    expect(imgSrc(await policyOf(t))).toBe(
      `${BASE_IMG_SRC} https://a.restart.example.net https://b.restart.example.net https://c.restart.example.net`,
    );
    admin = await signIn(t, ADMIN.username, ADMIN.password);
    await save('');
    expect(imgSrc(await policyOf(t))).toBe(BASE_IMG_SRC);
  });
});
