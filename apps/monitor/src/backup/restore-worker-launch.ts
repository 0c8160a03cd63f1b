import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConflictError, InvalidInputError } from '@monitor/domain';
import type { RestoreOutcome } from './restore-apply';
import type { RestoreJob, RestoreReply } from './restore-job';

/**
 * Run from the TypeScript sources (the API tests under jest), the worker compiles its modules
 * with swc as jest does, since jest's own transform does not reach worker threads. The built
 * server never takes this path: webpack emits restore-worker.js beside main.js.
 */
const FROM_SOURCES = `
const path = require('node:path');
const fs = require('node:fs');
const Module = require('node:module');
const { workerData } = require('node:worker_threads');
const root = workerData.sourceRoot;
const swc = Module.createRequire(path.join(root, 'package.json'))('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@monitor\\/(domain|contracts|probes|notifiers)(\\/.*)?$/.exec(request);
  return resolve.call(this, alias ? path.join(root, 'libs', alias[1], 'src', alias[2] || '') : request, ...rest);
};
require(workerData.entry);
`;

function startWorker(job: RestoreJob): Worker {
  if (__filename.endsWith('.ts'))
    return new Worker(FROM_SOURCES, {
      eval: true,
      workerData: {
        ...job,
        entry: path.join(__dirname, 'restore-worker.ts'),
        sourceRoot: path.resolve(__dirname, '../../../..'),
      },
    });
  // The bundle: main.js and restore-worker.js side by side.
  return new Worker(path.join(__dirname, 'restore-worker.js'), { workerData: job });
}

/**
 * Writes a checked document in a worker thread with its own connection, so the event loop stays
 * free for requests and probes while millions of rows are written. Rejects as the write would
 * have thrown (InvalidInputError, ConflictError, or an Error for anything unexpected).
 */
export function applyInWorker(job: RestoreJob): Promise<RestoreOutcome> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = startWorker(job);
    worker.once('message', (reply: RestoreReply) => {
      settled = true;
      if (reply.ok) return resolve(reply.outcome);
      if (reply.kind === 'invalid') return reject(new InvalidInputError(reply.message));
      if (reply.kind === 'conflict') return reject(new ConflictError(reply.message));
      reject(new Error(`the restore worker failed: ${reply.message}`));
    });
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(new Error(`the restore worker stopped (exit code ${code}) before answering`));
    });
  });
}
