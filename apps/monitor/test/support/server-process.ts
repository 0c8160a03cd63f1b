import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { backendEnv } from './test-database';

export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const MAIN_JS = path.join(REPO_ROOT, 'dist/apps/monitor/main.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export const tempDir = (prefix = 'monitor-test-'): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** Environment for a child process: the parent's, less anything that would configure the monitor. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(MONITOR_|PUID$|PGID$|UMASK$)/.test(key)) env[key] = value;
  }
  return { ...env, PUID: '0', ...extra };
}

export function parseLogLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Runs the built executable to completion. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } & Pick<
    SpawnOptions,
    'uid' | 'gid' | 'cwd'
  > = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN_JS, ...args], {
      env: cleanEnv({ ...backendEnv(args), ...options.env }),
      cwd: options.cwd ?? REPO_ROOT,
      uid: options.uid,
      gid: options.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process has written to stdout so far. */
  output(): string;
  /** Everything the process has written to stderr so far (a crash's stack, for instance). */
  stderr(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `main.js serve` on 127.0.0.1 with a free port and waits for its `listening` line. */
export function startServer(
  options: { dataDir?: string; env?: Record<string, string>; args?: string[]; timeoutMs?: number } = {},
): Promise<RunningServer> {
  const dataDir = options.dataDir ?? tempDir();
  const args = [MAIN_JS, 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    // A restart on the same data directory keeps its instance name, as a restarted instance does
    // (the default, <hostname>:pid<pid> for port 0, would change with every process).
    env: cleanEnv({
      ...backendEnv(args),
      MONITOR_INSTANCE_NAME: `test-${path.basename(dataDir)}`,
      ...options.env,
    }),
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`server did not start within ${options.timeoutMs ?? 15_000} ms:\n${stdout}\n${stderr}`),
      );
    }, options.timeoutMs ?? 15_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const listening = parseLogLines(stdout).find((line) => line.msg === 'listening');
      if (!listening) return;
      clearTimeout(timer);
      const url = String(listening.url);
      resolve({
        url,
        port: Number(new URL(url).port),
        dataDir,
        child,
        output: () => stdout,
        stderr: () => stderr,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}
