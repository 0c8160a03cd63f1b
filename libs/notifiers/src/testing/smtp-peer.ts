import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** One message as the peer accepted it: the envelope and the raw RFC 5322 text. */
export interface ReceivedMail {
  mail_from: string;
  rcpt_tos: string[];
  data: string;
  authenticated: boolean;
}

export interface SmtpPeerOptions {
  security: 'none' | 'starttls' | 'tls';
  /** PEM key and certificate; required for starttls and tls. */
  tls?: { key: string; cert: string };
  /** When set, the peer requires AUTH with exactly these credentials. */
  auth?: { user: string; password: string };
}

export interface SmtpPeer {
  port: number;
  received: ReceivedMail[];
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Debian's python3-aiosmtpd, not the pyenv interpreter on PATH. */
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(__dirname, 'smtp-peer.py');

/** Starts the aiosmtpd peer on a free port of 127.0.0.1 and records every message it accepts. */
export async function startSmtpPeer(options: SmtpPeerOptions): Promise<SmtpPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-peer-'));
  const args = [SCRIPT, '--security', options.security];
  if (options.tls) {
    writeFileSync(join(dir, 'key.pem'), options.tls.key);
    writeFileSync(join(dir, 'cert.pem'), options.tls.cert);
    args.push('--key', join(dir, 'key.pem'), '--cert', join(dir, 'cert.pem'));
  }
  if (options.auth) args.push('--user', options.auth.user, '--password', options.auth.password);
  const child: ChildProcessWithoutNullStreams = spawn(PYTHON, args, { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const received: ReceivedMail[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    let first = true;
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { port: number } | ReceivedMail;
      if (first) {
        first = false;
        resolve((parsed as { port: number }).port);
        return;
      }
      received.push(parsed as ReceivedMail);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
    });
    child.once('exit', (code) => reject(new Error(`the SMTP peer exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    received,
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve(received)
        : new Promise((resolve) => waiters.push({ count, resolve: () => resolve(received) })),
    close: async () => {
      child.stdin.end();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
