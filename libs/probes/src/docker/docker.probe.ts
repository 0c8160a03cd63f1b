import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { Client } from 'undici';
import { stringOption } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import {
  adminOnlyOptions,
  Deadline,
  checkKnownOptions,
  checkTimeout,
  elapsedMs,
  errorCode,
  firstProblem,
  networkErrorMessage,
  quote,
} from '../probe-messages';
import { readCapped } from '../http/http.probe';

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';
const OPTION_NAMES = ['socket'];
/** Container names as the engine accepts them, or ids (full or short hex). */
const CONTAINER = /^\/?[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;
/** An inspect answer is a few kB; a cap keeps a misbehaving peer from filling memory. */
const MAX_INSPECT_BYTES = 4 * 1024 * 1024;

interface Inspect {
  Name?: unknown;
  RestartCount?: unknown;
  State?: { Status?: unknown; Running?: unknown; Health?: { Status?: unknown } };
}

/** A failure found before or while talking to the engine, already worded for users. */
class SocketProblem extends Error {}

/**
 * Container status through the engine's API on its unix socket: exactly one read-only
 * `GET /containers/<id>/json` per run, never anything else (no start, stop, exec, events).
 *
 * Before connecting, the socket path is checked with fs so that "not there" and "not allowed"
 * are told apart: `stat` (missing, not a socket) then `access(R_OK | W_OK)` — connecting to a
 * unix socket needs write permission on it, and reading its answer is the point. Root passes
 * `access` whatever the mode, exactly as root's connect would succeed, so the check never
 * disagrees with what the connect would do. EACCES from the connect itself (for example an
 * ACL that `access` missed) maps to the same message.
 */
export class DockerProbe implements Probe {
  readonly type = 'docker';
  readonly secretOptions: readonly string[] = [];
  readonly optionNames = OPTION_NAMES;
  /** One kept-alive client per socket path. */
  private readonly clients = new Map<string, Client>();

  /** Only the local engine's socket: no network peer. */
  peerHosts(): string[] {
    return [];
  }

  /** The socket path would let a caller read any local socket; the engine's state is not shown either. */
  restrictedDraftProblem(options: Readonly<Record<string, unknown>>): string | null {
    return adminOnlyOptions(options, ['socket']);
  }

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => (CONTAINER.test(target) ? null : 'target must be a container name or id'),
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () =>
        options.socket === undefined ||
        (typeof options.socket === 'string' &&
          options.socket.startsWith('/') &&
          !options.socket.includes('\0'))
          ? null
          : 'options.socket must be an absolute path to the engine socket',
    );
  }

  async run({ target, options, timeoutMs, signal }: ProbeRequest): Promise<ProbeOutcome> {
    const socketPath = stringOption(options, 'socket', DEFAULT_DOCKER_SOCKET);
    const container = target.replace(/^\//, '');
    const deadline = new Deadline(timeoutMs, signal);
    try {
      await deadline.race(checkSocket(socketPath));
      const startedAt = performance.now();
      const response = await deadline.race(
        this.client(socketPath).request({
          method: 'GET',
          path: `/containers/${encodeURIComponent(container)}/json`,
          signal: deadline.signal,
        }),
      );
      const text = await deadline.race(readCapped(response.body, MAX_INSPECT_BYTES));
      const latencyMs = elapsedMs(startedAt);
      if (response.statusCode === 404) {
        return { success: false, message: `container ${quote(container)} not found`, latencyMs };
      }
      if (response.statusCode !== 200) {
        return { success: false, message: `docker engine answered HTTP ${response.statusCode}`, latencyMs };
      }
      return { ...judge(container, text), latencyMs };
    } catch (error) {
      let message: string;
      if (deadline.aborted) message = deadline.message;
      else if (error instanceof SocketProblem) message = error.message;
      else message = connectProblem(error, socketPath);
      return { success: false, message, latencyMs: null };
    } finally {
      deadline.dispose();
    }
  }

  /** Closes the kept-alive connections (shutdown, tests). */
  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.destroy()));
  }

  private client(socketPath: string): Client {
    let client = this.clients.get(socketPath);
    if (!client) {
      if (this.clients.size >= 16) {
        const [oldestPath, oldest] = this.clients.entries().next().value as [string, Client];
        this.clients.delete(oldestPath);
        void oldest.close().catch(() => undefined);
      }
      // timeout 0: no connect time-out of undici's own; the run's deadline aborts instead.
      client = new Client('http://docker', { socketPath, connect: { timeout: 0 }, pipelining: 1 });
      this.clients.set(socketPath, client);
    }
    return client;
  }
}

async function checkSocket(path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isSocket()) throw new SocketProblem(`docker socket ${path} is not a socket`);
    await access(path, constants.R_OK | constants.W_OK);
  } catch (error) {
    if (error instanceof SocketProblem) throw error;
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SocketProblem(`docker socket ${path} not found`);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new SocketProblem(`docker socket ${path} not readable (permission denied)`);
    }
    throw new SocketProblem(`docker socket ${path} cannot be checked (${code ?? 'unknown error'})`);
  }
}

function connectProblem(error: unknown, path: string): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return `docker socket ${path} not found`;
  if (code === 'EACCES' || code === 'EPERM') return `docker socket ${path} not readable (permission denied)`;
  if (code === 'ECONNREFUSED') return `docker socket ${path} refused the connection (is the engine running?)`;
  return networkErrorMessage(error, path);
}

function judge(container: string, text: string): Omit<ProbeOutcome, 'latencyMs'> {
  let inspect: Inspect;
  try {
    inspect = JSON.parse(text) as Inspect;
  } catch {
    return { success: false, message: 'docker engine sent an answer that is not JSON' };
  }
  const name =
    typeof inspect.Name === 'string' && inspect.Name !== '' ? inspect.Name.replace(/^\//, '') : container;
  const state = inspect.State ?? {};
  const status =
    typeof state.Status === 'string' ? state.Status : state.Running === true ? 'running' : 'unknown';
  const restarts = typeof inspect.RestartCount === 'number' ? inspect.RestartCount : 0;
  const health = typeof state.Health?.Status === 'string' ? `, health: ${state.Health.Status}` : '';
  return { success: status === 'running', message: `${name} is ${status} (restarts: ${restarts}${health})` };
}
