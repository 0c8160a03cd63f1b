#!/usr/bin/env node
/**
 * Runs after `ng build`:
 * 1. index.html gets a modulepreload hint for every chunk the main bundle imports statically, near
 *    or far (the Angular builder writes at most ten, so the largest initial chunk was fetched only
 *    after the main bundle had been parsed: one more round trip before anything is drawn);
 * 2. Brotli (.br) and gzip (.gz) copies are written beside every compressible file, so the server
 *    sends compressed assets without compressing on each request.
 * Usage: node scripts/finish-dashboard-build.mjs [dir] (default dist/frontend/browser).
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dir = resolve(process.argv[2] ?? 'dist/frontend/browser');
const COMPRESSIBLE = /\.(js|css|html|json|svg|txt|map)$/;
/** Below this, compression saves too little to matter (@fastify/static skips smaller files too). */
const MIN_BYTES = 1024;

/** Static imports of a minified module (`import{a as b}from"./chunk-X.js"`, `import"./chunk-Y.js"`). */
const STATIC_IMPORT = /import\s*(?:[^"'()]*?from\s*)?["']\.\/([\w.-]+\.js)["']/g;

function addModulePreloads() {
  const indexPath = join(dir, 'index.html');
  const html = readFileSync(indexPath, 'utf8');
  const main = /<script src="([\w.-]+\.js)" type="module">/.exec(html)?.[1];
  if (!main) throw new Error('index.html names no main module');
  const needed = new Set();
  const queue = [main];
  while (queue.length > 0) {
    const file = queue.pop();
    for (const [, imported] of readFileSync(join(dir, file), 'utf8').matchAll(STATIC_IMPORT)) {
      if (!needed.has(imported)) {
        needed.add(imported);
        queue.push(imported);
      }
    }
  }
  const missing = [...needed].filter((file) => !html.includes(`href="${file}"`));
  const links = missing.map((file) => `<link rel="modulepreload" href="${file}">`).join('');
  writeFileSync(indexPath, html.replace(`<script src="${main}"`, `${links}<script src="${main}"`));
  console.log(`index.html: ${needed.size} chunks imported by ${main}, ${missing.length} preload hints added`);
}

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
addModulePreloads();
walk(dir);
console.log(
  `precompressed ${files} files: ${(raw / 1024).toFixed(0)} KiB -> ${(brotli / 1024).toFixed(0)} KiB brotli`,
);
