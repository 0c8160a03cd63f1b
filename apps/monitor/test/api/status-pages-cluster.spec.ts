import { Client } from 'pg';
import { EVENTS_CHANNEL } from '../../src/cluster/cluster-events.bridge';
import { databaseUrlFor, describeOnPostgres } from '../support/test-database';
import { call, Headers, setupAdmin } from './support/http';
import { record } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/** Waits (bounded) until `done` holds; the assertions after it say what was expected. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describeOnPostgres('instances share one PostgreSQL database')('status page events across instances', () => {
  let t: TestApp;
  let admin: Headers;
  let peer: Client;
  const heard: [string, unknown][] = [];

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
    // Stands in for another instance: it listens and sends on the channel the instances share.
    peer = new Client({ connectionString: databaseUrlFor(t.dataDir) });
    await peer.connect();
    peer.on('notification', (n) => {
      const message = JSON.parse(n.payload ?? '{}') as { e?: [string, unknown][] };
      heard.push(...(message.e ?? []));
    });
    await peer.query(`LISTEN ${EVENTS_CHANNEL}`);
  });

  afterAll(async () => {
    await peer.end();
    await t.close();
  });

  it('a page changed on this instance is announced to the others', async () => {
    const page = await call<{ id: number }>(
      t,
      'POST',
      '/api/status-pages',
      { slug: 'shared', title: 'Shared' },
      admin,
    );
    expect(page.status).toBe(201);
    const isPageEvent = ([kind]: [string, unknown]) => kind === 'statusPage';
    await until(() => heard.some(isPageEvent));
    expect(heard.filter(isPageEvent)).toEqual([
      ['statusPage', { id: page.body.id, slug: 'shared', action: 'created' }],
    ]);
  });

  it("another instance's page change is published on this instance's bus", async () => {
    const events = record(t, 'statusPage');
    const message = {
      o: 'another-instance',
      e: [['statusPage', { id: 77, slug: 'elsewhere', action: 'updated' }]],
    };
    await peer.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify(message)]);
    await until(() => events.events.length > 0);
    expect(events.events).toEqual([{ id: 77, slug: 'elsewhere', action: 'updated' }]);
    events.stop();
  });
});
