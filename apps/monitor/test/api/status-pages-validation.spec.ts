import type { StatusPage } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { createSensor, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Answer = StatusPage & { error: string };

describe('status pages: the API refuses bad input', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
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
  const made = async (body: Record<string, unknown>): Promise<StatusPage> => {
    const res = await create(body);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    for (const name of ['api', 'web', 'db', 'mail'])
      sensors.push((await createSensor(t, admin, { name, type: 'http', target: 'http://127.0.0.1:9/' })).id);
  });

  afterAll(async () => {
    await t.close();
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
});
