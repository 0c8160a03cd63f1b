#!/usr/bin/env node
/**
 * Writes Brotli (.br) and gzip (.gz) copies beside every compressible file of the built dashboard,
 * so the server sends compressed assets without compressing on each request.
 * Usage: node scripts/precompress.mjs [dir] (default dist/frontend/browser).
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dir = resolve(process.argv[2] ?? 'dist/frontend/browser');
const COMPRESSIBLE = /\.(js|css|html|json|svg|txt|map)$/;
/** Below this, compression saves too little to matter (@fastify/static skips smaller files too). */
const MIN_BYTES = 1024;

let files = 0;
let raw = 0;
let brotli = 0;
function walk(path) {
  for (const name of readdirSync(path)) {
    const file = join(path, name);
    if (statSync(file).isDirectory()) walk(file);
    else if (COMPRESSIBLE.test(name)) {
      const data = readFileSync(file);
      if (data.length < MIN_BYTES) continue;
      const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
      writeFileSync(`${file}.br`, br);
      writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      files++;
      raw += data.length;
      brotli += br.length;
    }
  }
}
walk(dir);
console.log(
  `precompressed ${files} files: ${(raw / 1024).toFixed(0)} KiB -> ${(brotli / 1024).toFixed(0)} KiB brotli`,
);
