import * as net from 'node:net';

export interface RawResponse {
  /** 0 when no status line arrived. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket error seen while reading (ECONNRESET…), if any. */
  error?: string;
  /** Whether the server closed the connection, or the client gave up after `readMs`. */
  closedBy: 'server' | 'client';
}

/**
 * Writes `request` as-is on a fresh TCP connection (for requests fetch will not send: bad
 * percent-encoding, oversized headers, no `Expect`, a body that trickles) and reads until the
 * server closes or `readMs` passes. `pieces` follow one by one; `trickle` is then written a byte
 * at a time every `trickleMs`.
 */
export function rawRequest(
  url: string,
  request: string | Buffer,
  options: { readMs?: number; trickle?: string; trickleMs?: number; pieces?: Buffer[] } = {},
): Promise<RawResponse> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(request);
      // Written as a browser does: piece after piece, without waiting for an answer in between.
      const pieces = [...(options.pieces ?? [])];
      const writeNext = () => {
        const piece = pieces.shift();
        if (piece && !socket.destroyed) socket.write(piece, () => setTimeout(writeNext, 0));
      };
      writeNext();
      if (options.trickle) {
        let i = 0;
        timer = setInterval(() => {
          if (i >= (options.trickle as string).length || socket.destroyed) return clearInterval(timer);
          socket.write(options.trickle!.charAt(i++));
        }, options.trickleMs ?? 1000);
      }
    });
    let closedBy: 'server' | 'client' = 'server';
    const limit = setTimeout(() => {
      closedBy = 'client';
      socket.destroy();
    }, options.readMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(limit);
      if (timer) clearInterval(timer);
      resolve({ ...parseResponse(Buffer.concat(chunks)), error, closedBy });
    });
  });
}

function parseResponse(raw: Buffer): Omit<RawResponse, 'error' | 'closedBy'> {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end < 0) return { status: 0, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  const length = Number(headers['content-length']);
  if (Number.isInteger(length)) body = Buffer.from(body).subarray(0, length).toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** A request head for `rawRequest`; `body` gets its Content-Length unless one is in `headers`. */
export function httpRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body: string | Buffer = '',
): Buffer {
  const all: Record<string, string> = { host: '127.0.0.1', connection: 'close', ...headers };
  const framed = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h));
  if (body.length > 0 && !framed) all['content-length'] = String(Buffer.byteLength(body));
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}
