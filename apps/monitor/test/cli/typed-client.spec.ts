import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { requireBuiltExecutable } from './cli-support';
import { REPO_ROOT, RunningServer, startServer } from '../support/server-process';

jest.setTimeout(120_000);

/**
 * A client generated from the committed docs/openapi.json (openapi-typescript types, openapi-fetch
 * calls) must type-check under strict TypeScript and work against the built server. It is written to
 * an ignored folder inside the repository (so it resolves the installed packages) and deleted after.
 * The sensor is created paused, so the only probe is the one the client asks for.
 */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const [baseUrl, target] = process.argv.slice(2);
const admin = { username: 'typed-admin', password: 'typed client password' };

function failed(step: string, status: number, error: { error: string }): never {
  throw new Error(step + ' answered ' + status + ': ' + error.error);
}

const anonymous = createClient<paths>({ baseUrl });
const setup = await anonymous.POST('/api/setup', { body: { ...admin, mode: 'simple' } });
if (setup.error) failed('setup', setup.response.status, setup.error);
const login = await anonymous.POST('/api/login', { body: admin });
if (login.error) failed('login', login.response.status, login.error);
const cookie = login.response.headers.get('set-cookie')?.split(';', 1)[0] ?? '';

const client = createClient<paths>({ baseUrl, headers: { cookie } });
const created = await client.POST('/api/sensors', {
  body: { name: 'typed client target', type: 'http', target, interval: 3600, enabled: false },
});
if (created.error) failed('create', created.response.status, created.error);
const id: number = created.data.id;
const probe = await client.POST('/api/sensors/{id}/probe', { params: { path: { id } } });
if (probe.error) failed('probe', probe.response.status, probe.error);
const results = await client.GET('/api/sensors/{id}/results', {
  params: { path: { id }, query: { limit: 5 } },
});
if (results.error) failed('results', results.response.status, results.error);
const unknown = await client.GET('/api/sensors/{id}', { params: { path: { id: id + 1000 } } });
const anonymousList = await anonymous.GET('/api/sensors');

console.log(
  JSON.stringify({
    signedIn: login.data.ok === true,
    sensor: { id, name: created.data.name, type: created.data.type },
    probe: { success: probe.data.success, status_code: probe.data.status_code },
    results: results.data.map((result) => ({
      success: result.success,
      status_code: result.status_code,
      prober: typeof result.instance,
    })),
    unknown: { status: unknown.response.status, error: unknown.error?.error },
    anonymous: { status: anonymousList.response.status, error: anonymousList.error?.error },
  }),
);
`;

/** Calls the generated client gets wrong; each must be a type error, or the types check nothing. */
const WRONG_CALLS = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
await client.POST('/api/sensors', { body: { name: 42, type: 'http' } });
await client.GET('/api/sensors/{id}', { params: { path: { id: 'seven' } } });
await client.GET('/api/no-such-path');
const listed = await client.GET('/api/sensors');
if (listed.data) console.log(listed.data[0].no_such_field);
`;

/** Runs a command to completion without blocking this process (it serves the probe target). */
function run(command: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

function typeCheck(
  dir: string,
  file: string,
  emit: boolean,
): Promise<{ status: number | null; output: string }> {
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  const options = [
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
  ];
  const output = emit ? ['--outDir', path.join(dir, 'out')] : ['--noEmit'];
  return run(process.execPath, [
    tsc,
    ...options,
    '--lib',
    'es2022,dom',
    '--types',
    'node',
    ...output,
    path.join(dir, file),
  ]);
}

describe('typed client generated from docs/openapi.json', () => {
  let dir: string;
  let server: RunningServer;
  let target: Server;
  let targetHits = 0;

  beforeAll(async () => {
    requireBuiltExecutable();
    const parent = path.join(REPO_ROOT, 'test-output');
    fs.mkdirSync(parent, { recursive: true });
    dir = fs.mkdtempSync(path.join(parent, 'typed-client-'));
    const generated = await run(process.execPath, [
      path.join(REPO_ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      path.join(REPO_ROOT, 'docs/openapi.json'),
      '--output',
      path.join(dir, 'schema.ts'),
    ]);
    if (generated.status !== 0) throw new Error(`openapi-typescript failed:\n${generated.output}`);
    fs.writeFileSync(path.join(dir, 'client.mts'), PROGRAM);
    fs.writeFileSync(path.join(dir, 'wrong-calls.mts'), WRONG_CALLS);

    target = createServer((_request, response) => {
      targetHits += 1;
      response.end('fine');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    server = await startServer();
  });

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (server) {
      await server.stop();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
    if (target) {
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('type-checks a client program under strict TypeScript', async () => {
    const checked = await typeCheck(dir, 'client.mts', true);
    expect(checked.output).toBe('');
    expect(checked.status).toBe(0);
  });

  it('refuses calls the document does not allow', async () => {
    const checked = await typeCheck(dir, 'wrong-calls.mts', false);
    expect(checked.status).not.toBe(0);
    const errorLines = checked.output.split('\n').filter((line) => line.includes('error TS'));
    // One error for each wrong call: a number for a name, a word for an id, an unknown path, an unknown field.
    expect(errorLines.map((line) => line.replace(/^.*\((\d+),\d+\).*$/, '$1'))).toEqual([
      '6',
      '7',
      '8',
      '10',
    ]);
  });

  it('signs in, creates a sensor, probes it and reads its results against the built server', async () => {
    const target_url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
    const ran = await run(process.execPath, [path.join(dir, 'out', 'client.mjs'), server.url, target_url]);
    expect(ran.status).toBe(0);
    const outcome = JSON.parse(ran.output.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(outcome).toEqual({
      signedIn: true,
      sensor: { id: expect.any(Number) as number, name: 'typed client target', type: 'http' },
      probe: { success: true, status_code: 200 },
      results: [{ success: true, status_code: 200, prober: 'string' }],
      unknown: { status: 404, error: expect.stringContaining('no sensor') as string },
      anonymous: { status: 401, error: expect.any(String) as string },
    });
    expect(targetHits).toBe(1);
  });
});
