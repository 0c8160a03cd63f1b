import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Answers of 1 KiB or more are sent Brotli- or gzip-compressed when the client accepts it: the
 * status summary of 2,000 sensors is over a megabyte of JSON and shrinks about tenfold. Large
 * answers are compressed on libuv's thread pool, not on the event loop. The dashboard's files
 * arrive already compressed (they carry their encoding and are left alone), and the event stream
 * is written to the socket directly, so it is never buffered by a compressor.
 * Registered before the dashboard's static files, as @fastify/static requires.
 */
export async function registerCompression(app: NestFastifyApplication): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: 4,
      },
    },
  });
}
