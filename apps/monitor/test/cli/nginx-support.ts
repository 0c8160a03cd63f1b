import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';

/** Where Debian's nginx-light puts it; CI installs it when missing (.ci/run). */
export const NGINX = '/usr/sbin/nginx';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * deploy/nginx.conf made runnable here: each upstream server (a compose service name) becomes the
 * 127.0.0.1 port given for it, the listen port a free loopback port, and the file is wrapped in the
 * main context the official image's nginx.conf would give it, with the pid, log and temp paths in
 * `dir`. Every other directive stays as written. Throws when a name has no port or the file has
 * no such line, so a changed file cannot silently escape the test.
 */
export function renderNginxConf(
  source: string,
  upstreams: Record<string, number>,
  listenPort: number,
  dir: string,
): string {
  const seen = new Set<string>();
  let body = source.replace(
    /^(\s*server\s+)([\w.-]+):(\d+)(\s|;)/gm,
    (_all, head, name: string, _p, tail) => {
      const port = upstreams[name];
      if (port === undefined)
        throw new Error(`nginx.conf names upstream ${name}, which the test does not run`);
      seen.add(name);
      return `${head}127.0.0.1:${port}${tail}`;
    },
  );
  const missing = Object.keys(upstreams).filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`nginx.conf has no upstream server ${missing.join(', ')}`);
  let listens = 0;
  body = body.replace(/^(\s*listen\s+)\d+;/gm, (_all, head) => {
    listens++;
    return `${head}127.0.0.1:${listenPort};`;
  });
  if (listens !== 1) throw new Error(`nginx.conf has ${listens} listen lines, expected one`);
  const at = (name: string) => path.join(dir, name);
  // Run as root (CI), nginx hands its workers to an unprivileged user unless told otherwise.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `${user}pid ${at('nginx.pid')};
error_log ${at('error.log')} info;
worker_processes 1;
events { worker_connections 256; }
http {
access_log ${at('access.log')};
client_body_temp_path ${at('client_body')};
proxy_temp_path ${at('proxy')};
fastcgi_temp_path ${at('fastcgi')};
uwsgi_temp_path ${at('uwsgi')};
scgi_temp_path ${at('scgi')};
${body}
}
`;
}

/** `nginx -t` on a configuration file: its exit status and what it printed. */
export function checkNginxConf(file: string, prefix: string): { status: number | null; output: string } {
  const result = spawnSync(NGINX, ['-t', '-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', file], {
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface RunningNginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts nginx in the foreground on a rendered file and resolves once its port accepts connections. */
export async function startNginx(file: string, prefix: string, port: number): Promise<RunningNginx> {
  const child = spawn(
    NGINX,
    ['-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', file, '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) {
      const log = fs.readFileSync(path.join(prefix, 'error.log'), 'utf8');
      throw new Error(`nginx exited with ${child.exitCode}:\n${output}\n${log}`);
    }
    if (await accepts(port)) return { url: `http://127.0.0.1:${port}`, child, stop };
    if (attempt > 200) {
      await stop();
      throw new Error(`nginx did not listen on ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export interface EventStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** `event:` frames received so far, data parsed, each with the keep-alive comments before it. */
  events: { event: string; data: unknown; commentsBefore: number }[];
  /** Keep-alive comments received so far. */
  comments: number;
  close(): void;
}

/** Opens GET /api/events (its own connection) and collects frames as they arrive. */
export function openEventStream(url: string, cookie: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/api/events`, {
      agent: false,
      headers: { accept: 'text/event-stream', cookie },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const stream: EventStream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        events: [],
        comments: 0,
        close: () => request.destroy(),
      };
      let pending = '';
      response.setEncoding('utf8');
      response.on('error', () => undefined);
      response.on('data', (chunk: string) => {
        pending += chunk;
        let boundary: number;
        while ((boundary = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (block.startsWith(':')) stream.comments++;
          else if (event !== undefined)
            stream.events.push({
              event,
              data: JSON.parse(data ?? 'null') as unknown,
              commentsBefore: stream.comments,
            });
        }
      });
      resolve(stream);
    });
    request.end();
  });
}

/** Polls `check` until it holds; gives up (failing the test) after a generous bound. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
