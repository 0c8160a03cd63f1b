import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BackupDocument, Sensor, StatusPage, StatusPagesResponse } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { ADMIN, call, Headers, setupAdmin, signIn } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Status pages declared in the configuration file: matched by slug, sections naming the file's
 * sensors by name, managed by the file (409 to the API), released when no longer declared.
 */
jest.setTimeout(60_000);

const SENSORS = [
  { name: 'web', type: 'http', target: 'http://127.0.0.1:9/' },
  { name: 'db', type: 'tcp', target: '127.0.0.1:9' },
];
const MAIN = {
  slug: 'main',
  title: 'Our services',
  description: 'What we run',
  published: true,
  history_days: 30,
  language: 'en',
  sections: [
    { title: 'Data', sensors: ['db'] },
    { title: 'Everything', sensors: ['db', 'web'] },
  ],
};
const FILE = {
  sensors: SENSORS,
  status_pages: [MAIN, { slug: 'adopted', title: 'Adopted by the file' }],
};

describe('status pages declared in the configuration file', () => {
  let dataDir: string;
  let t: TestApp | undefined;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-status-pages-config-'));
  });

  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (file: unknown) => {
    await t?.close();
    t = undefined;
    t = await startTestApp({ startScheduler: false, clock: new MutableClock(), dataDir, file });
    return t;
  };
  const pages = async (as: Headers) =>
    (await call<StatusPagesResponse>(t!, 'GET', '/api/status-pages', undefined, as)).body.status_pages;
  const bySlug = async (as: Headers, slug: string) => (await pages(as)).find((p) => p.slug === slug)!;

  it('creates declared pages and adopts an API page of the same slug; the API cannot change or delete them', async () => {
    // Before the file: an API page that the file will adopt, with an announcement that stays.
    await start({});
    let admin = await setupAdmin(t!);
    const api = await call<StatusPage>(
      t!,
      'POST',
      '/api/status-pages',
      { slug: 'adopted', title: 'Mine' },
      admin,
    );
    expect(api.status).toBe(201);
    const note = { title: 'Kept', body: 'Across the adoption.', severity: 'info' };
    expect(
      (await call(t!, 'POST', `/api/status-pages/${api.body.id}/announcements`, note, admin)).status,
    ).toBe(201);
    await call(t!, 'POST', '/api/status-pages', { slug: 'free', title: 'Free' }, admin);

    await start(FILE);
    admin = await signIn(t!, ADMIN.username, ADMIN.password);
    const sensors = await call<Sensor[]>(t!, 'GET', '/api/sensors', undefined, admin);
    const id = (name: string) => sensors.body.find((s) => s.name === name)!.id;
    const main = await bySlug(admin, 'main');
    expect(main).toMatchObject({
      title: 'Our services',
      description: 'What we run',
      published: true,
      show_uptime: true,
      history_days: 30,
      language: 'en',
      footer: '',
      managed_by: 'config',
      sections: [
        { title: 'Data', sensors: [id('db')] },
        { title: 'Everything', sensors: [id('db'), id('web')] },
      ],
    });
    const adopted = await bySlug(admin, 'adopted');
    expect(adopted).toMatchObject({ id: api.body.id, title: 'Adopted by the file', managed_by: 'config' });
    expect(adopted.announcements.map((a) => a.title)).toEqual(['Kept']);
    expect(t!.logs.find((l) => l.msg === 'configuration file applied')).toMatchObject({ status_pages: 2 });

    const refusals: [string, string, unknown, string][] = [
      ['PUT', `/api/status-pages/${main.id}`, { title: 'x' }, 'changed'],
      ['PUT', `/api/status-pages/${main.id}`, { sections: [] }, 'changed'],
      ['DELETE', `/api/status-pages/${main.id}`, undefined, 'deleted'],
      ['DELETE', `/api/status-pages/${adopted.id}`, undefined, 'deleted'],
    ];
    for (const [method, url, body, verb] of refusals) {
      const res = await call(t!, method, url, body, admin);
      expect([method, url, res.status, res.body]).toEqual([
        method,
        url,
        409,
        {
          error: `status page "${url.endsWith(String(main.id)) ? 'main' : 'adopted'}" is declared in the configuration file and cannot be ${verb} through the API`,
        },
      ]);
    }
    // Announcements are not declared: operators post them on declared pages too.
    const posted = await call(t!, 'POST', `/api/status-pages/${main.id}/announcements`, note, admin);
    expect(posted.status).toBe(201);
    expect((await bySlug(admin, 'main')).sections).toEqual(main.sections);
    // Another page's slug cannot be renamed onto a declared one either.
    const free = await bySlug(admin, 'free');
    expect((await call(t!, 'PUT', `/api/status-pages/${free.id}`, { slug: 'main' }, admin)).status).toBe(409);

    // A restore leaves declared pages as they are, and replaces the others.
    const response = await fetch(`${t!.url}/api/backup`, { headers: admin });
    const { accounts: _a, api_key: _k, ...doc } = (await response.json()) as BackupDocument;
    const restored = await fetch(`${t!.url}/api/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...doc,
        status_pages: doc
          .status_pages!.filter((p) => p.slug !== 'adopted' && p.slug !== 'free')
          .map((p) => ({ ...p, title: 'From the backup', sections: [] })),
      }),
    });
    expect(restored.status).toBe(200);
    const after = await pages(admin);
    expect(after.map((p) => [p.slug, p.title, p.managed_by])).toEqual([
      ['adopted', 'Adopted by the file', 'config'],
      ['main', 'Our services', 'config'],
    ]);
    expect(after[1].sections).toEqual(main.sections);
  });

  it('a page no longer declared goes back to the API (with its sections); a changed one follows the file', async () => {
    await start({
      sensors: SENSORS,
      status_pages: [
        { ...MAIN, title: 'Renamed in the file', sections: [{ title: 'Web', sensors: ['web'] }] },
      ],
    });
    const admin = await signIn(t!, ADMIN.username, ADMIN.password);
    const main = await bySlug(admin, 'main');
    expect(main).toMatchObject({ title: 'Renamed in the file', managed_by: 'config' });
    expect(main.sections).toHaveLength(1);
    const adopted = await bySlug(admin, 'adopted');
    expect(adopted.managed_by).toBeNull();
    const put = await call<StatusPage>(
      t!,
      'PUT',
      `/api/status-pages/${adopted.id}`,
      { title: 'Mine again' },
      admin,
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ title: 'Mine again', managed_by: null });
    expect((await call(t!, 'DELETE', `/api/status-pages/${adopted.id}`, undefined, admin)).status).toBe(200);
  });

  it('an unknown sensor name, a bad slug or a repeated slug stops start-up, naming it', async () => {
    await t?.close();
    t = undefined;
    const cases: [unknown, string][] = [
      [
        {
          sensors: SENSORS,
          status_pages: [{ ...MAIN, sections: [{ title: 'x', sensors: ['web', 'mail'] }] }],
        },
        'invalid configuration: status_pages[0].sections[0].sensors: no sensor named "mail" is declared',
      ],
      [
        { sensors: SENSORS, status_pages: [{ slug: 'Main', title: 'x' }] },
        `invalid configuration: status_pages[0].slug: required, 1 to 64 lowercase letters, digits and '-' (got "Main")`,
      ],
      [
        {
          status_pages: [
            { slug: 'a', title: 'x' },
            { slug: 'a', title: 'y' },
          ],
        },
        'invalid configuration: status_pages[1].slug: duplicate slug "a" in status_pages',
      ],
      [
        {
          sensors: SENSORS,
          status_pages: [{ ...MAIN, sections: [{ title: 'x', sensors: ['web', 'web'] }] }],
        },
        'invalid configuration: status_pages[0].sections[0].sensors: sensor "web" is listed twice',
      ],
      [
        { status_pages: [{ slug: 'a', title: 'x', history_days: 45 }] },
        'invalid configuration: status_pages[0].history_days: must be 30, 60 or 90 (got 45)',
      ],
      [
        { status_pages: [{ slug: 'a', title: 'x', colour: 'red' }] },
        'invalid configuration: status_pages[0].colour: unknown key',
      ],
    ];
    for (const [file, message] of cases)
      await expect(startTestApp({ startScheduler: false, dataDir, file })).rejects.toThrow(message);
  });
});
