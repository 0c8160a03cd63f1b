import { once } from 'node:events';
import * as net from 'node:net';

/** Starts `server` on an ephemeral port of `host` and returns the port. */
export async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

/** Stops `server`, cutting kept-alive and hanging connections so the test can end. */
export async function stop(server: net.Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const withConnections = server as net.Server & { closeAllConnections?: () => void };
  withConnections.closeAllConnections?.();
  await closed;
}

/**
 * A TCP server that accepts and then never says a word: the peer for time-out tests. It tracks
 * its sockets so `stop` can destroy them.
 */
export function silentServer(): net.Server & { openSockets: Set<net.Socket> } {
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.resume(); // read and drop what arrives, so the peer's close is seen
    socket.on('error', () => undefined);
    socket.on('close', () => connections.delete(socket));
  }) as net.Server & { openSockets: Set<net.Socket>; closeAllConnections: () => void };
  server.openSockets = connections;
  server.closeAllConnections = () => connections.forEach((socket) => socket.destroy());
  return server;
}

/** A port on 127.0.0.1 that was free a moment ago and has no listener now. */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  const port = await listen(server, host);
  await stop(server);
  return port;
}

/**
 * A host name that fails to resolve without any query leaving the machine: glibc refuses to
 * encode a label longer than 63 octets, so getaddrinfo fails locally (checked with strace: no
 * packet is sent). A plain `.invalid` name is NOT safe here: glibc forwards it to the resolver
 * in /etc/resolv.conf.
 */
export const UNRESOLVABLE_HOST = `${'x'.repeat(64)}.invalid`;
