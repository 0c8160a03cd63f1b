import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  cleanEnv,
  LogLine,
  MAIN_JS,
  parseLogLines,
  REPO_ROOT,
  RunningServer,
  tempDir,
} from '../support/server-process';
import { backendEnv } from '../support/test-database';

/** Fails the suite with a clear message when the executable has not been built. */
export function requireBuiltExecutable(): void {
  if (!fs.existsSync(MAIN_JS)) {
    throw new Error(
      `${MAIN_JS} is missing: build it first with \`npx nest build monitor && node scripts/stamp-build.mjs\``,
    );
  }
}

export const isRoot = (): boolean => process.getuid?.() === 0;

export const NOBODY = 65534;

/** Temp directories and servers a test creates, released in afterEach. */
export class Resources {
  private readonly dirs: string[] = [];
  private readonly servers: RunningServer[] = [];

  dir(prefix = 'monitor-cli-'): string {
    const dir = tempDir(prefix);
    this.dirs.push(dir);
    return dir;
  }

  /** Registers a path (file or directory) to delete afterwards. */
  track(file: string): string {
    this.dirs.push(file);
    return file;
  }

  server<T extends RunningServer>(server: T): T {
    this.servers.push(server);
    return server;
  }

  async release(): Promise<void> {
    const servers = this.servers.splice(0);
    await Promise.all(servers.map((server) => server.stop('SIGKILL').catch(() => undefined)));
    for (const dir of this.dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every non-empty line of a log must be one JSON object with level, time and msg. Throws with the
 * offending line otherwise, so a test that calls this asserts the log format.
 */
export function strictLogLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`log line is not JSON: ${line}`);
      }
      const record = parsed as Record<string, unknown>;
      if (
        typeof record !== 'object' ||
        record === null ||
        typeof record.level !== 'string' ||
        typeof record.time !== 'string' ||
        typeof record.msg !== 'string'
      ) {
        throw new Error(`log line lacks level, time or msg: ${line}`);
      }
      return record as LogLine;
    });
}

export const errorLines = (text: string): LogLine[] =>
  parseLogLines(text).filter((line) => line.level === 'error');

export interface FileSnapshot {
  name: string;
  size: number;
  mtimeMs: number;
  mode: number;
  sha256: string;
}

export interface DirSnapshot {
  dirMtimeMs: number;
  files: FileSnapshot[];
}

/** Every entry of a directory (not recursive): name, size, mtime, mode and content hash. */
export function snapshotDir(dir: string): DirSnapshot {
  const files = fs
    .readdirSync(dir)
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const stat = fs.lstatSync(file);
      return {
        name,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        mode: stat.mode,
        sha256: stat.isFile() ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : '',
      };
    });
  return { dirMtimeMs: fs.statSync(dir).mtimeMs, files };
}

export interface ProcessIds {
  uid: number[];
  gid: number[];
}

/** Real, effective, saved and filesystem uid and gid of a running process, from /proc. */
export function processIds(pid: number): ProcessIds {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const ids = (key: string): number[] => {
    const match = new RegExp(`^${key}:\\s+(.*)$`, 'm').exec(status);
    if (!match) throw new Error(`no ${key} line in /proc/${pid}/status`);
    return match[1].trim().split(/\s+/).map(Number);
  };
  return { uid: ids('Uid'), gid: ids('Gid') };
}

/**
 * Like startServer, but the child can be spawned under another uid/gid. Starts `main.js serve` on
 * 127.0.0.1 with a free port and resolves once the `listening` line appears.
 */
export function startServerAs(options: {
  dataDir: string;
  uid?: number;
  gid?: number;
  env?: Record<string, string>;
  args?: string[];
  timeoutMs?: number;
}): Promise<RunningServer> {
  const args = [MAIN_JS, 'serve', '--listen', '127.0.0.1:0', '--data-dir', options.dataDir];
  const child = spawn(process.execPath, [...args, ...(options.args ?? [])], {
    env: cleanEnv({ ...backendEnv(args), ...options.env }),
    cwd: REPO_ROOT,
    uid: options.uid,
    gid: options.gid,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const timeoutMs = options.timeoutMs ?? 15_000;

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
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
        dataDir: options.dataDir,
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
