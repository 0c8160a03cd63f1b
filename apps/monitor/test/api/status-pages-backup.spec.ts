import type { BackupDocument, RestoreResult, StatusPage, StatusPagesResponse } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { createSensor, record } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

describe('status pages in the backup', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  const ids: Record<string, number> = {};

  /** Without accounts and API key: restoring them is the backup suite's business. */
  async function backup(): Promise<BackupDocument> {
    const response = await fetch(`${t.url}/api/backup`, { headers: admin });
    expect(response.status).toBe(200);
    const { accounts: _a, api_key: _k, ...doc } = (await response.json()) as BackupDocument;
    return doc as BackupDocument;
  }
  async function restore(
    doc: unknown,
  ): Promise<{ status: number; body: RestoreResult & { error?: string } }> {
    const response = await fetch(`${t.url}/api/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify(doc),
    });
    return { status: response.status, body: (await response.json()) as RestoreResult & { error?: string } };
  }
  const pages = async () =>
    (await call<StatusPagesResponse>(t, 'GET', '/api/status-pages', undefined, admin)).body.status_pages;
  const post = async (path: string, body: unknown) => {
    const res = await call<{ id: number }>(t, 'POST', path, body, admin);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** A page as the document restores it: everything but ids and the times a restore sets. */
  const content = (p: StatusPage) => ({
    ...p,
    id: undefined,
    created_at: undefined,
    updated_at: undefined,
    announcements: p.announcements.map((a) => ({ ...a, id: undefined })),
  });

  beforeAll(async () => {
    clock = new MutableClock(Date.parse('2026-11-20T08:00:00Z'));
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    // Two sensors named "web": the backup tells them apart by seq.
    for (const [key, name] of [
      ['api', 'api'],
      ['web', 'web'],
      ['web2', 'web'],
      ['db', 'db'],
    ])
      ids[key] = (await createSensor(t, admin, { name, type: 'http', target: 'http://127.0.0.1:9/' })).id;
  });

  afterAll(async () => {
    await t.close();
  });

  it('writes pages with their sections (sensors by reference, in order) and announcements; a restore brings them back', async () => {
    const main = await post('/api/status-pages', {
      slug: 'main',
      title: 'Main',
      description: 'Everything we run',
      published: true,
      show_uptime: false,
      history_days: 60,
      footer: 'Ops team',
      language: 'de',
      sections: [
        { title: 'Web', sensors: [ids.web2, ids.api, ids.web] },
        { title: 'Data', sensors: [ids.db] },
      ],
    });
    await post(`/api/status-pages/${main.id}/announcements`, {
      title: 'First',
      body: 'One',
      severity: 'info',
    });
    clock.advance(60_000);
    await post(`/api/status-pages/${main.id}/announcements`, {
      title: 'Second',
      body: '',
      severity: 'critical',
    });
    const spare = await post('/api/status-pages', { slug: 'spare', title: 'Spare' });
    const before = await pages();

    const doc = await backup();
    expect(Object.keys(doc).indexOf('status_pages')).toBe(Object.keys(doc).indexOf('sensors') + 1);
    expect(doc.status_pages).toEqual([
      {
        slug: 'main',
        title: 'Main',
        description: 'Everything we run',
        published: true,
        show_uptime: false,
        history_days: 60,
        footer: 'Ops team',
        language: 'de',
        sections: [
          { title: 'Web', sensors: [{ name: 'web', seq: 2 }, 'api', 'web'] },
          { title: 'Data', sensors: ['db'] },
        ],
        announcements: [
          { title: 'Second', body: '', severity: 'critical', created_at: '2026-11-20T08:01:00.000Z' },
          { title: 'First', body: 'One', severity: 'info', created_at: '2026-11-20T08:00:00.000Z' },
        ],
      },
      {
        slug: 'spare',
        title: 'Spare',
        description: '',
        published: false,
        show_uptime: true,
        history_days: 90,
        footer: '',
        language: '',
        sections: [],
        announcements: [],
      },
    ]);

    // Changes after the backup: all of them are undone by the restore.
    await call(t, 'DELETE', `/api/status-pages/${spare.id}`, undefined, admin);
    await call(t, 'PUT', `/api/status-pages/${main.id}`, { title: 'Changed', sections: [] }, admin);
    await post('/api/status-pages', { slug: 'newer', title: 'Newer' });

    const events = record(t, 'statusPage');
    const res = await restore(doc);
    expect(res.status).toBe(200);
    expect(res.body.counts.status_pages).toBe(2);
    const after = await pages();
    expect(after.map(content)).toEqual(before.map(content));
    // Matched by slug: the page that stayed keeps its id.
    expect(after.find((p) => p.slug === 'main')!.id).toBe(main.id);
    expect(events.events.map((e) => `${e.slug} ${e.action}`).sort()).toEqual([
      'main updated',
      'newer deleted',
      'spare created',
    ]);
    events.stop();
  });

  it('a restore that replaces the sensors takes the pages to the restored sensors', async () => {
    const doc = await backup();
    // The document's sensors without "api": its page entry must be refused, not silently dropped.
    const withoutApi = { ...doc, sensors: doc.sensors!.filter((s) => s.name !== 'api') };
    const refused = await restore(withoutApi);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      'status_pages row 0 ("main"): sensor "api" is not in the document\'s sensors',
    );
    // With the page entry gone too, the restore deletes "api" and the page loses it.
    const main = doc.status_pages!.find((p) => p.slug === 'main')!;
    const trimmed = {
      ...withoutApi,
      status_pages: [{ ...main, sections: [{ title: 'Web', sensors: ['web'] }] }],
    };
    const res = await restore(trimmed);
    expect(res.status).toBe(200);
    const after = await pages();
    expect(after.map((p) => p.slug)).toEqual(['main']);
    expect(after[0].sections).toEqual([{ title: 'Web', sensors: [ids.web] }]);
    // The document's own sensors came back under new ids where they had gone: restore the first backup.
    expect((await restore(doc)).status).toBe(200);
  });

  it('refuses a broken status page entry with a message naming it, and changes nothing', async () => {
    const doc = await backup();
    const main = doc.status_pages![0];
    const before = await pages();
    const cases: [unknown, string][] = [
      [
        { ...main, slug: 'Main' },
        "status_pages row 0: slug must be 1 to 64 lowercase letters, digits and '-'",
      ],
      [{ ...main, title: ' ' }, 'status_pages row 0 ("main"): title must not be empty'],
      [{ ...main, history_days: 45 }, 'status_pages row 0 ("main"): history_days must be 30, 60 or 90'],
      [{ ...main, language: 'fr' }, `status_pages row 0 ("main"): language must be '', en or de`],
      [
        { ...main, sections: [{ title: 'x', sensors: ['db', 'db'] }] },
        'status_pages row 0 ("main"): sections[0]: sensor "db" appears twice',
      ],
      [
        { ...main, sections: [{ title: 'x', sensors: ['nowhere'] }] },
        'status_pages row 0 ("main"): sensor "nowhere" is not in the document\'s sensors',
      ],
      [
        {
          ...main,
          announcements: [{ title: 'x', body: '', severity: 'major', created_at: '2026-11-20T08:00:00Z' }],
        },
        'status_pages row 0 ("main"): announcements[0].severity must be one of info, warning, critical',
      ],
      [{ ...main, colour: 'red' }, 'status_pages row 0 ("main"): unknown field "colour"'],
    ];
    for (const [entry, error] of cases) {
      const res = await restore({ ...doc, status_pages: [entry] });
      expect(res).toEqual({ status: 400, body: { error } });
    }
    const twice = await restore({ ...doc, status_pages: [main, main] });
    expect(twice.body.error).toBe('status_pages row 1: another row has the same slug');
    // Without the sensors table, references are checked against the stored sensors.
    const { sensors: _s, ...pagesOnly } = doc;
    const unknown = await restore({
      ...pagesOnly,
      status_pages: [{ ...main, sections: [{ title: 'x', sensors: ['nowhere'] }] }],
    });
    expect(unknown.body.error).toBe(
      'status_pages row 0 ("main"): sensor "nowhere" is neither in the document nor stored',
    );
    expect(await pages()).toEqual(before);
  });
});
