import type { StatusPage, StatusPageAnnouncement, StatusPagesResponse } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { createSensor, record, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Answer = StatusPage & { error: string };

describe('status pages: the API', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;
  const sensors: number[] = [];

  const create = (body: Record<string, unknown>, as: Headers = admin) =>
    call<Answer>(t, 'POST', '/api/status-pages', body, as);
  const update = (id: number, body: Record<string, unknown>, as: Headers = admin) =>
    call<Answer>(t, 'PUT', `/api/status-pages/${id}`, body, as);
  const get = (id: number, as: Headers = viewer) =>
    call<Answer>(t, 'GET', `/api/status-pages/${id}`, undefined, as);
  const remove = (id: number, as: Headers = admin) =>
    call<{ ok: true; error: string }>(t, 'DELETE', `/api/status-pages/${id}`, undefined, as);
  const announce = (id: number, body: Record<string, unknown>, as: Headers = operator) =>
    call<StatusPageAnnouncement & { error: string }>(
      t,
      'POST',
      `/api/status-pages/${id}/announcements`,
      body,
      as,
    );
  const made = async (body: Record<string, unknown>): Promise<StatusPage> => {
    const res = await create(body);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    for (const name of ['api', 'web', 'db', 'mail'])
      sensors.push((await createSensor(t, admin, { name, type: 'http', target: 'http://127.0.0.1:9/' })).id);
  });

  afterAll(async () => {
    await t.close();
  });

  it('creates a page with the defaults, answers it by id and in the list sorted by slug', async () => {
    const events = record(t, 'statusPage');
    const b = await create({ slug: 'b-page', title: '  Bee  ' });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({
      slug: 'b-page',
      title: 'Bee',
      description: '',
      sections: [],
      published: false,
      show_uptime: true,
      history_days: 90,
      footer: '',
      language: '',
      announcements: [],
      managed_by: null,
    });
    expect(new Date(b.body.created_at).toISOString()).toBe(b.body.created_at);
    const a = await made({ slug: 'a-page', title: 'Ay', published: true, history_days: 30, language: 'de' });
    expect(events.events).toEqual([
      { id: b.body.id, slug: 'b-page', action: 'created' },
      { id: a.id, slug: 'a-page', action: 'created' },
    ]);
    events.stop();

    const one = await get(b.body.id);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(b.body);
    const list = await call<StatusPagesResponse>(t, 'GET', '/api/status-pages', undefined, viewer);
    expect(list.status).toBe(200);
    const slugs = list.body.status_pages.map((p) => p.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs).toEqual(expect.arrayContaining(['a-page', 'b-page']));
    expect(list.body.status_pages.find((p) => p.slug === 'a-page')).toEqual(a);
    await remove(a.id);
    await remove(b.body.id);
  });

  it('keeps the order of sections and of the sensors in each; the same sensor may be on two sections', async () => {
    const [s1, s2, s3, s4] = sensors;
    const sections = [
      { title: 'Backend', sensors: [s3, s1, s4] },
      { title: 'Frontend', sensors: [s2, s3] },
      { title: '', sensors: [] },
    ];
    const page = await made({ slug: 'ordered', title: 'Ordered', sections });
    expect(page.sections).toEqual(sections);
    expect((await get(page.id)).body.sections).toEqual(sections);
    const reordered = [
      { title: 'Frontend', sensors: [s3, s2] },
      { title: 'Backend', sensors: [s4, s1, s3] },
    ];
    expect((await update(page.id, { sections: reordered })).body.sections).toEqual(reordered);
    expect((await get(page.id)).body.sections).toEqual(reordered);
    await remove(page.id);
  });

  it('PUT changes only the fields sent; sections when sent replace all of them', async () => {
    const page = await made({
      slug: 'partial',
      title: 'Partial',
      description: 'All our services',
      footer: 'Operated by us',
      sections: [{ title: 'One', sensors: [sensors[0]] }],
    });
    clock.advance(5_000);
    const events = record(t, 'statusPage');
    const res = await update(page.id, { published: true, title: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...page,
      published: true,
      title: 'Renamed',
      updated_at: new Date(Date.parse(page.updated_at) + 5_000).toISOString(),
    });
    expect(events.events).toEqual([{ id: page.id, slug: 'partial', action: 'updated' }]);
    events.stop();
    // A GET answer sent back as it is changes nothing (read-only fields are ignored).
    const again = await update(page.id, res.body as unknown as Record<string, unknown>);
    expect(again.status).toBe(200);
    expect({ ...again.body, updated_at: '' }).toEqual({ ...res.body, updated_at: '' });
    const cleared = await update(page.id, { sections: [], slug: 'partial-2' });
    expect(cleared.body).toMatchObject({ slug: 'partial-2', sections: [], description: 'All our services' });
    await remove(page.id);
  });

  describe('validation: 400 naming the rule, nothing stored', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no slug', { title: 'T' }, 'slug is required'],
      [
        'an upper-case slug',
        { slug: 'Status', title: 'T' },
        "slug must be 1 to 64 lowercase letters, digits and '-'",
      ],
      [
        'a slug with a slash',
        { slug: 'a/b', title: 'T' },
        "slug must be 1 to 64 lowercase letters, digits and '-'",
      ],
      ['an empty slug', { slug: '', title: 'T' }, "slug must be 1 to 64 lowercase letters, digits and '-'"],
      [
        'a slug of 65',
        { slug: 'a'.repeat(65), title: 'T' },
        "slug must be 1 to 64 lowercase letters, digits and '-'",
      ],
      ['no title', { slug: 'x' }, 'title is required'],
      ['a blank title', { slug: 'x', title: '   ' }, 'title must not be empty'],
      ['a title of 201', { slug: 'x', title: 't'.repeat(201) }, 'title must be at most 200 characters'],
      [
        'a long description',
        { slug: 'x', title: 'T', description: 'd'.repeat(2001) },
        'description must be at most 2000 characters',
      ],
      [
        'a long footer',
        { slug: 'x', title: 'T', footer: 'f'.repeat(2001) },
        'footer must be at most 2000 characters',
      ],
      ['history_days 45', { slug: 'x', title: 'T', history_days: 45 }, 'history_days must be 30, 60 or 90'],
      [
        'history_days "90"',
        { slug: 'x', title: 'T', history_days: '90' },
        'history_days must be 30, 60 or 90',
      ],
      ['language fr', { slug: 'x', title: 'T', language: 'fr' }, "language must be '', en or de"],
      ['published "yes"', { slug: 'x', title: 'T', published: 'yes' }, 'published must be true or false'],
      [
        'sections not an array',
        { slug: 'x', title: 'T', sections: {} },
        'sections must be an array of {title, sensors}',
      ],
      [
        'a section that is a number',
        { slug: 'x', title: 'T', sections: [1] },
        'sections must be an array of {title, sensors}',
      ],
      [
        '51 sections',
        { slug: 'x', title: 'T', sections: Array(51).fill({ title: 's', sensors: [] }) },
        'sections must have at most 50 entries',
      ],
      [
        'a section title of 201',
        { slug: 'x', title: 'T', sections: [{ title: 's'.repeat(201), sensors: [] }] },
        'sections.0.title must be at most 200 characters',
      ],
      [
        'a section without sensors',
        { slug: 'x', title: 'T', sections: [{ title: 's' }] },
        'sections.0.sensors is required',
      ],
      [
        'a sensor id that is a string',
        { slug: 'x', title: 'T', sections: [{ title: 's', sensors: ['1'] }] },
        'sections.0.sensors must be an array of sensor ids',
      ],
      [
        '501 sensors in a section',
        {
          slug: 'x',
          title: 'T',
          sections: [{ title: 's', sensors: Array.from({ length: 501 }, (_, i) => i + 1) }],
        },
        'sections.0.sensors must list at most 500 sensors',
      ],
      ['an unknown field', { slug: 'x', title: 'T', colour: 'red' }, 'unknown field "colour"'],
    ];
    it.each(cases)('%s', async (_what, body, error) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    });

    it('unknown sensor ids are named (sorted, each once), also beyond 32 bits', async () => {
      const res = await create({
        slug: 'unknown',
        title: 'T',
        sections: [
          { title: 'a', sensors: [sensors[0], 9_999_999, 7_777_777] },
          { title: 'b', sensors: [7_777_777, 99_999_999_999] },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'unknown sensor ids: 7777777, 9999999, 99999999999' });
    });

    it('the same sensor twice in one section', async () => {
      const res = await create({
        slug: 'twice',
        title: 'T',
        sections: [{ title: 'Web', sensors: [sensors[0], sensors[1], sensors[0]] }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: `sensor ${sensors[0]} appears twice in section 1 ("Web")` });
    });

    it('left nothing behind', async () => {
      expect(await sql(t, 'SELECT id FROM status_pages')).toEqual([]);
      expect(await sql(t, 'SELECT id FROM status_page_sections')).toEqual([]);
    });

    it('a bad PUT leaves the page as it was (no partial write)', async () => {
      const page = await made({
        slug: 'kept',
        title: 'Kept',
        sections: [{ title: 'A', sensors: [sensors[0]] }],
      });
      const res = await update(page.id, {
        title: 'Changed',
        sections: [{ title: 'B', sensors: [sensors[1], 8_888_888] }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'unknown sensor ids: 8888888' });
      expect((await get(page.id)).body).toEqual(page);
      const bad = await update(page.id, { history_days: 7 });
      expect(bad.body).toEqual({ error: 'history_days must be 30, 60 or 90' });
      await remove(page.id);
    });
  });

  it('a taken slug is a 409 naming it, on POST and on PUT', async () => {
    const first = await made({ slug: 'taken', title: 'First' });
    const other = await made({ slug: 'other', title: 'Other' });
    const dup = await create({ slug: 'taken', title: 'Second' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'a status page with slug "taken" already exists' });
    const rename = await update(other.id, { slug: 'taken' });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({ error: 'a status page with slug "taken" already exists' });
    expect((await get(other.id)).body.slug).toBe('other');
    await remove(first.id);
    await remove(other.id);
  });

  it('racing creates of one slug: one 201, the others 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ slug: 'race', title: `Racer ${i}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = answers.find((a) => a.status === 201)!;
    await remove(winner.body.id);
  });

  it('unknown ids are 404 on GET, PUT, DELETE and the announcements', async () => {
    const message = { error: 'no status page with id 424242' };
    expect(await get(424242)).toMatchObject({ status: 404, body: message });
    expect(await update(424242, { title: 'x' })).toMatchObject({ status: 404, body: message });
    expect(await remove(424242)).toMatchObject({ status: 404, body: message });
    expect(await announce(424242, { title: 'x', body: '', severity: 'info' })).toMatchObject({
      status: 404,
      body: message,
    });
    const del = await call(t, 'DELETE', '/api/status-pages/424242/announcements/1', undefined, operator);
    expect(del).toMatchObject({ status: 404, body: message });
    expect((await get(99_999_999_999)).status).toBe(404);
  });

  it('roles: viewers read, operators announce but do not edit, admins write, anonymous is 401', async () => {
    const page = await made({ slug: 'roles', title: 'Roles' });
    expect((await create({ slug: 'by-operator', title: 'T' }, operator)).status).toBe(403);
    expect((await create({ slug: 'by-viewer', title: 'T' }, viewer)).status).toBe(403);
    expect((await update(page.id, { title: 'x' }, operator)).status).toBe(403);
    expect((await remove(page.id, operator)).status).toBe(403);
    expect((await announce(page.id, { title: 'x', body: '', severity: 'info' }, viewer)).status).toBe(403);
    expect((await get(page.id, {})).status).toBe(401);
    expect((await call(t, 'GET', '/api/status-pages')).status).toBe(401);
    expect((await get(page.id, operator)).status).toBe(200);
    const note = await announce(
      page.id,
      { title: 'By an operator', body: 'b', severity: 'warning' },
      operator,
    );
    expect(note.status).toBe(201);
    const byAdmin = await announce(page.id, { title: 'By an admin', body: '', severity: 'info' }, admin);
    expect(byAdmin.status).toBe(201);
    expect((await get(page.id)).body.title).toBe('Roles');
    expect((await remove(page.id)).body).toEqual({ ok: true });
    expect((await get(page.id)).status).toBe(404);
  });

  it('announcements: added newest first, validated, deleted only from their own page', async () => {
    const page = await made({ slug: 'news', title: 'News' });
    const other = await made({ slug: 'elsewhere', title: 'Elsewhere' });
    const events = record(t, 'statusPage');
    const first = await announce(page.id, {
      title: ' Maintenance tonight ',
      body: 'From 22:00.',
      severity: 'info',
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number),
      title: 'Maintenance tonight',
      body: 'From 22:00.',
      severity: 'info',
      created_at: new Date(clock.now()).toISOString(),
    });
    clock.advance(1_000);
    const second = await announce(page.id, { title: 'Outage', body: 'Investigating.', severity: 'critical' });
    const stored = (await get(page.id)).body;
    expect(stored.announcements).toEqual([second.body, first.body]);
    expect(stored.updated_at).toBe(new Date(clock.now()).toISOString());
    expect(events.events).toEqual([
      { id: page.id, slug: 'news', action: 'updated' },
      { id: page.id, slug: 'news', action: 'updated' },
    ]);
    events.stop();

    const bad: [Record<string, unknown>, string][] = [
      [{ body: '', severity: 'info' }, 'title is required'],
      [{ title: ' ', body: '', severity: 'info' }, 'title must not be empty'],
      [{ title: 't'.repeat(201), body: '', severity: 'info' }, 'title must be at most 200 characters'],
      [{ title: 't', body: 'b'.repeat(5001), severity: 'info' }, 'body must be at most 5000 characters'],
      [{ title: 't', severity: 'info' }, 'body is required'],
      [{ title: 't', body: '' }, 'severity is required'],
      [{ title: 't', body: '', severity: 'major' }, 'severity must be info, warning, critical'],
    ];
    for (const [body, error] of bad) expect((await announce(page.id, body)).body).toEqual({ error });

    const wrongPage = await call(
      t,
      'DELETE',
      `/api/status-pages/${other.id}/announcements/${first.body.id}`,
      undefined,
      operator,
    );
    expect(wrongPage.status).toBe(404);
    expect(wrongPage.body).toEqual({ error: `status page ${other.id} has no announcement ${first.body.id}` });
    const gone = await call(
      t,
      'DELETE',
      `/api/status-pages/${page.id}/announcements/${first.body.id}`,
      undefined,
      operator,
    );
    expect(gone).toMatchObject({ status: 200, body: { ok: true } });
    expect((await get(page.id)).body.announcements).toEqual([second.body]);
    const again = await call(
      t,
      'DELETE',
      `/api/status-pages/${page.id}/announcements/${first.body.id}`,
      undefined,
      operator,
    );
    expect(again.status).toBe(404);
    // Deleting the page takes its announcements along.
    await remove(page.id);
    expect(await sql(t, 'SELECT id FROM status_page_announcements WHERE page_id = ?', [page.id])).toEqual([]);
    await remove(other.id);
  });

  it('a deleted sensor disappears from every page, the rest keeps its order', async () => {
    const doomed = (
      await createSensor(t, admin, { name: 'doomed', type: 'http', target: 'http://127.0.0.1:9/' })
    ).id;
    const [s1, s2] = sensors;
    const one = await made({
      slug: 'one',
      title: 'One',
      sections: [{ title: 'A', sensors: [s1, doomed, s2] }],
    });
    const two = await made({
      slug: 'two',
      title: 'Two',
      sections: [
        { title: 'B', sensors: [doomed] },
        { title: 'C', sensors: [s2, doomed] },
      ],
    });
    const events = record(t, 'statusPage');
    expect((await call(t, 'DELETE', `/api/sensors/${doomed}`, undefined, admin)).status).toBe(200);
    expect((await get(one.id)).body.sections).toEqual([{ title: 'A', sensors: [s1, s2] }]);
    expect((await get(two.id)).body.sections).toEqual([
      { title: 'B', sensors: [] },
      { title: 'C', sensors: [s2] },
    ]);
    // Announced right after the deletion's answer (the cascade leaves no trace of which pages held it).
    for (let i = 0; i < 200 && events.events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events.events.map((e) => e.slug).sort()).toEqual(['one', 'two']);
    events.stop();
    // The positions left behind do not stop a later save.
    expect((await update(one.id, { sections: [{ title: 'A', sensors: [s2, s1] }] })).status).toBe(200);
    await remove(one.id);
    await remove(two.id);
  });
});
