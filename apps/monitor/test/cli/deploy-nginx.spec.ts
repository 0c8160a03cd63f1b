import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { RunningServer, parseLogLines, REPO_ROOT, startServer, tempDir } from '../support/server-process';
import { databaseUrlFor, testBackend } from '../support/test-database';
import { requireBuiltExecutable } from './cli-support';
import {
  checkNginxConf,
  EventStream,
  freePort,
  NGINX,
  openEventStream,
  renderNginxConf,
  RunningNginx,
  startNginx,
  waitFor,
} from './nginx-support';

/**
 * deploy/: the compose file has the structure README "Outgrowing one machine" promises (no Docker
 * engine runs here, so that is read, not run), and deploy/nginx.conf, as written, runs in front of
 * real built instances on one PostgreSQL database: the API answers through it, the event stream
 * reaches the client through it, and it keeps answering when instances go.
 */
jest.setTimeout(180_000);

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const MONITORS = ['monitor-1', 'monitor-2', 'monitor-3'];
const PASSWORD = 'deploy nginx password';

type Service = {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string[] };
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

const composeText = fs.readFileSync(path.join(DEPLOY, 'compose.yaml'), 'utf8');
// Compose resolves YAML merge keys (<<), which YAML 1.2 leaves to the reader.
const compose = parse(composeText, { merge: true }) as Compose;
const nginxConf = fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');
/** nginx.conf without its comments, for reading its directives. */
const directives = nginxConf.replace(/#.*$/gm, '');
const env = (name: string): Record<string, string> => compose.services[name].environment ?? {};

/** The port of a HOST:PORT listen address. */
const portOf = (listen: string): string => listen.slice(listen.lastIndexOf(':') + 1);

/** The body of the first `location <match> { ... }` block of nginx.conf (no nested blocks in it). */
function locationBlock(match: string): string {
  const at = directives.indexOf(`location ${match} {`);
  if (at < 0) throw new Error(`nginx.conf has no location ${match}`);
  return directives.slice(at, directives.indexOf('}', at));
}

describe('deploy/compose.yaml', () => {
  it('runs postgres, three monitor instances and nginx', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['nginx', 'postgres', ...MONITORS].sort());
  });

  it('runs the official PostgreSQL 16 image on a named volume, checked with pg_isready, its password from the environment', () => {
    const postgres = compose.services.postgres;
    expect(postgres.image).toMatch(/^postgres:16(\b|$)/);
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes ?? {})).toContain('postgres-data');
    expect(postgres.healthcheck?.test).toContain('pg_isready');
    expect(env('postgres').POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}$/);
  });

  it('gives every instance the same database, its own name and data volume, trust in the proxy and the image health check', () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const imageCheck = JSON.parse(
      /^HEALTHCHECK .*CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? 'null',
    ) as string[];
    expect(imageCheck).toEqual(['monitor', 'healthcheck']);

    for (const name of MONITORS) {
      const service = compose.services[name];
      expect(path.resolve(DEPLOY, service.build?.context ?? '-')).toBe(REPO_ROOT);
      expect(service.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      expect(env(name).MONITOR_INSTANCE_NAME).toBe(name);
      expect(env(name).MONITOR_TRUST_PROXY).toBe('true');
      expect(service.volumes).toEqual([`${name}-data:/data`]);
      expect(Object.keys(compose.volumes ?? {})).toContain(`${name}-data`);
      expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(service.healthcheck?.test).toEqual(['CMD', ...imageCheck]);
    }
    const urls = new Set(MONITORS.map((name) => env(name).MONITOR_DATABASE_URL));
    expect(urls.size).toBe(1);
    const [template] = [...urls];
    expect(template).toMatch(/\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}/);
    const url = new URL(template.replace(/\$\{POSTGRES_PASSWORD[^}]*\}/, 'password'));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('postgres');
    expect(url.username).toBe(env('postgres').POSTGRES_USER);
    expect(url.pathname).toBe(`/${env('postgres').POSTGRES_DB}`);
    expect(new Set(MONITORS.map((name) => env(name).MONITOR_LISTEN)).size).toBe(1);
  });

  it('publishes one port through nginx, which mounts deploy/nginx.conf whose upstream is the three instances', () => {
    const nginx = compose.services.nginx;
    expect(nginx.ports).toHaveLength(1);
    const listen = /^\s*listen\s+(\d+);/m.exec(directives)?.[1];
    expect(portOf(nginx.ports?.[0] ?? '')).toBe(listen);

    const mounts = (nginx.volumes ?? []).map((volume) => volume.split(':'));
    const conf = mounts.find(([source]) => path.resolve(DEPLOY, source) === path.join(DEPLOY, 'nginx.conf'));
    expect(conf?.[1]).toBe('/etc/nginx/conf.d/default.conf');

    const instancePort = portOf(env('monitor-1').MONITOR_LISTEN);
    const servers = [...directives.matchAll(/^\s*server\s+([\w.-]+:\d+)\s/gm)].map((match) => match[1]);
    expect(servers).toEqual(MONITORS.map((name) => `${name}:${instancePort}`));
  });

  it('names in deploy/.env.example every variable it reads, with no password filled in', () => {
    const example = fs.readFileSync(path.join(DEPLOY, '.env.example'), 'utf8');
    const read = new Set([...composeText.matchAll(/\$\{(\w+)/g)].map((match) => match[1]));
    const listed = new Map(
      [...example.matchAll(/^(\w+)=(.*)$/gm)].map((match) => [match[1], match[2]] as [string, string]),
    );
    expect([...read].filter((name) => !listed.has(name))).toEqual([]);
    expect(listed.get('POSTGRES_PASSWORD')).toBe('');
  });

  it('streams /api/events unbuffered, uncached, for an hour, over HTTP/1.1 keep-alive', () => {
    const events = locationBlock('= /api/events');
    expect(events).toMatch(/proxy_buffering off;/);
    expect(events).toMatch(/proxy_cache off;/);
    expect(events).toMatch(/proxy_read_timeout (1h|[1-9]\d*h|[1-9]\d*d);/);
    expect(events).toMatch(/proxy_http_version 1\.1;/);
    expect(events).toMatch(/proxy_set_header Connection "";/);
    expect(directives).toMatch(/proxy_next_upstream error timeout http_502 http_503;/);
    expect(directives).toMatch(/max_fails=\d+ fail_timeout=\w+;/);
    // Any instance verifies any session cookie: no affinity.
    expect(directives).not.toMatch(/\b(ip_hash|hash|sticky)\b/);
  });
});

const onPostgres = testBackend() === 'postgres';
const describeLive = onPostgres ? describe : describe.skip;

describeLive(
  onPostgres
    ? 'deploy/nginx.conf in front of three built instances on one PostgreSQL database'
    : 'deploy/nginx.conf in front of three built instances (PostgreSQL only: several instances share one database, SQLite allows one process)',
  () => {
    const dirs: string[] = [];
    const instances: RunningServer[] = [];
    const streams: EventStream[] = [];
    let nginx: RunningNginx | undefined;
    let prefix: string;
    let rendered: string;
    let cookie: string;

    const get = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${nginx?.url}${url}`, { headers: { cookie, ...headers } });

    beforeAll(async () => {
      requireBuiltExecutable();
      if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install -y nginx-light`);
      for (let i = 0; i < MONITORS.length; i++) dirs.push(tempDir('monitor-deploy-'));
      const databaseUrl = databaseUrlFor(dirs[0]);
      for (const [i, name] of MONITORS.entries()) {
        // As compose.yaml configures each instance, on loopback ports and the test's database.
        const { MONITOR_INSTANCE_NAME, MONITOR_TRUST_PROXY } = env(name);
        instances.push(
          await startServer({
            dataDir: dirs[i],
            env: {
              MONITOR_DATABASE_URL: databaseUrl,
              MONITOR_INSTANCE_NAME,
              MONITOR_TRUST_PROXY,
              ...(i === 0 ? { MONITOR_ADMIN_PASSWORD: PASSWORD } : {}),
            },
            timeoutMs: 60_000,
          }),
        );
      }
      prefix = tempDir('monitor-nginx-');
      const upstreams = Object.fromEntries(MONITORS.map((name, i) => [name, instances[i].port]));
      rendered = path.join(prefix, 'nginx.conf');
      const port = await freePort();
      fs.writeFileSync(rendered, renderNginxConf(nginxConf, upstreams, port, prefix));
      nginx = await startNginx(rendered, prefix, port);
    });

    afterAll(async () => {
      for (const stream of streams) stream.close();
      await nginx?.stop();
      await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
      for (const dir of [...dirs, prefix]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('passes nginx -t', () => {
      const { status, output } = checkNginxConf(rendered, prefix);
      expect(output).toMatch(/test is successful/);
      expect(status).toBe(0);
    });

    it('answers the API through nginx, and the instance logs the address nginx saw, not one the client sent', async () => {
      expect((await fetch(`${nginx?.url}/healthz`)).status).toBe(200);

      const login = await fetch(`${nginx?.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: PASSWORD }),
      });
      expect(login.status).toBe(200);
      cookie = login.headers.getSetCookie()[0].split(';')[0];

      const requestId = 'deploy-nginx-forwarded-for';
      const answer = await get('/api/sensors', {
        'x-forwarded-for': '203.0.113.7',
        'x-request-id': requestId,
      });
      expect(answer.status).toBe(200);
      const logged = () =>
        instances
          .flatMap((instance) => parseLogLines(instance.output()))
          .find((line) => line.msg === 'http request' && line.request_id === requestId);
      await waitFor(() => logged() !== undefined, 'the instance to log the request');
      expect(logged()?.ip).toBe('127.0.0.1');
    });

    it('passes the event stream through without holding frames back', async () => {
      const stream = await openEventStream(nginx?.url ?? '', cookie);
      streams.push(stream);
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);

      // One creation reaches each instance (nginx takes them in turn), so the stream's own instance
      // announces one of them whether or not events cross instances.
      const ids: number[] = [];
      for (const name of ['a', 'b', 'c']) {
        const made = await fetch(`${nginx?.url}/api/sensors`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ name, type: 'tcp', target: '127.0.0.1:9', enabled: false }),
        });
        expect(made.status).toBe(201);
        ids.push(((await made.json()) as { id: number }).id);
      }
      const announcement = () =>
        stream.events.find(
          ({ event, data }) => event === 'sensor' && ids.includes((data as { id: number }).id),
        );
      // The instance writes a keep-alive comment 25 s after the stream opened. Held back by nginx
      // (buffered, or sent only once 1,460 bytes are waiting), the frame would arrive with it, not before.
      await waitFor(
        () => announcement() !== undefined || stream.comments > 0,
        'a sensor event or a keep-alive comment on the stream through nginx',
      );
      expect(announcement()).toMatchObject({ event: 'sensor', commentsBefore: 0 });
    });

    it('keeps answering through nginx when one instance stops (SIGTERM) and another is killed', async () => {
      const answersAll = async () => {
        for (let i = 0; i < 2 * MONITORS.length; i++) {
          const answer = await get('/api/sensors');
          expect(answer.status).toBe(200);
          expect(((await answer.json()) as unknown[]).length).toBe(3);
        }
      };
      const code = await instances[0].stop('SIGTERM');
      // On a failed stop, its last log lines say why.
      expect({ code, log: code === 0 ? '' : instances[0].output().split('\n').slice(-8).join('\n') }).toEqual(
        {
          code: 0,
          log: '',
        },
      );
      await answersAll();
      await instances[1].stop('SIGKILL');
      await answersAll();

      const stream = await openEventStream(nginx?.url ?? '', cookie);
      streams.push(stream);
      expect(stream.status).toBe(200);
    });
  },
);
