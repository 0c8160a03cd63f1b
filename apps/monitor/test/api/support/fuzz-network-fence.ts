import * as dgram from 'node:dgram';
import * as dns from 'node:dns';
import * as net from 'node:net';

/**
 * The fuzzer's guarantee that no traffic leaves 127.0.0.1: while the fence is up, every TCP
 * connect, UDP send and name lookup in this process (the app runs in it) to anything but the
 * loopback address is refused before a packet goes out, and written down as a violation.
 */
export interface NetworkFence {
  /** One line per refused attempt, in order. */
  readonly attempts: string[];
  lower(): void;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1', 'localhost']);

const isLoopback = (host: unknown): boolean =>
  typeof host === 'string' && (LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host));

/** Host (or unix socket path) of a `net.Socket#connect` call in any of its argument forms. */
function connectTarget(args: unknown[]): { host: unknown; path?: unknown } {
  // net.connect() hands the socket its already normalised [options, callback] array.
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: unknown; path?: unknown };
    if (options.path !== undefined) return { host: undefined, path: options.path };
    return { host: options.host ?? 'localhost' };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { host: undefined, path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

/**
 * Address of a `dgram.Socket#send` call: send(msg, [offset, length,] [port, [address,]] [cb]).
 * One or three numbers carry a port (the last); none or two are a connected socket's send.
 */
function sendAddress(args: unknown[]): unknown {
  const numbers = args.map((arg, i) => (i > 0 && typeof arg === 'number' ? i : -1)).filter((i) => i > 0);
  if (numbers.length !== 1 && numbers.length !== 3) return 'localhost'; // connect() was checked
  const next = args[numbers[numbers.length - 1] + 1];
  return typeof next === 'string' ? next : 'localhost';
}

export function raiseNetworkFence(): NetworkFence {
  const attempts: string[] = [];
  const refuse = (what: string): Error => {
    attempts.push(what);
    return Object.assign(new Error(`network fence: ${what} refused (tests talk to 127.0.0.1 only)`), {
      code: 'ECONNREFUSED',
    });
  };

  const socketConnect = net.Socket.prototype.connect;
  const udpSend = dgram.Socket.prototype.send;
  const udpConnect = dgram.Socket.prototype.connect;
  const lookup = dns.lookup;
  const lookupPromise = dns.promises.lookup;

  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const { host, path } = connectTarget(args);
    if (path !== undefined || !isLoopback(host)) {
      const error = refuse(`TCP connect to ${String(path ?? host)}`);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return (socketConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  dgram.Socket.prototype.send = function (this: dgram.Socket, ...args: unknown[]) {
    const address = sendAddress(args);
    if (!isLoopback(address)) {
      const error = refuse(`UDP send to ${String(address)}`);
      const callback = args.find((arg) => typeof arg === 'function') as ((e: Error) => void) | undefined;
      process.nextTick(() => (callback ? callback(error) : this.emit('error', error)));
      return;
    }
    (udpSend as (...a: unknown[]) => void).apply(this, args);
  } as typeof dgram.Socket.prototype.send;

  dgram.Socket.prototype.connect = function (this: dgram.Socket, ...args: unknown[]) {
    const address = typeof args[1] === 'string' ? args[1] : 'localhost';
    if (!isLoopback(address)) {
      const error = refuse(`UDP connect to ${address}`);
      process.nextTick(() => this.emit('error', error));
      return;
    }
    (udpConnect as (...a: unknown[]) => void).apply(this, args);
  } as typeof dgram.Socket.prototype.connect;

  (dns as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) => {
    const callback = rest.find((arg) => typeof arg === 'function') as (e: Error) => void;
    if (!isLoopback(hostname)) return process.nextTick(() => callback(refuse(`lookup of ${hostname}`)));
    return (lookup as (...a: unknown[]) => void)(hostname, ...rest);
  };
  (dns.promises as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) =>
    isLoopback(hostname)
      ? (lookupPromise as (...a: unknown[]) => Promise<unknown>)(hostname, ...rest)
      : Promise.reject(refuse(`lookup of ${hostname}`));

  return {
    attempts,
    lower: () => {
      net.Socket.prototype.connect = socketConnect;
      dgram.Socket.prototype.send = udpSend;
      dgram.Socket.prototype.connect = udpConnect;
      (dns as { lookup: unknown }).lookup = lookup;
      (dns.promises as { lookup: unknown }).lookup = lookupPromise;
    },
  };
}
