import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { ProbeOutcome } from '../probe';

/** uid/gid of `nobody` on Debian and most distributions. */
export const NOBODY = 65534;

/**
 * Runs one probe in a child Node process under another uid, for checks that root would pass
 * (root ignores file modes). The child compiles the TypeScript source with @swc/core, as jest
 * does, and prints the outcome as JSON.
 */
export function runProbeAs(
  uid: number,
  modulePath: string,
  exportName: string,
  request: { target: string; options: Record<string, unknown>; timeoutMs: number },
): Promise<ProbeOutcome> {
  const libs = join(__dirname, '..', '..', '..');
  const script = `
const fs = require('node:fs');
const Module = require('node:module');
const swc = require(${JSON.stringify(require.resolve('@swc/core'))});
// The libraries' own names, as jest's moduleNameMapper and the server build resolve them.
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@monitor\\/(domain|contracts|probes|notifiers)(\\/.*)?$/.exec(request);
  if (lib) request = ${JSON.stringify(libs)} + '/' + lib[1] + '/src' + (lib[2] ?? '');
  return resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    module: { type: 'commonjs' },
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  });
  module._compile(code, filename);
};
const Probe = require(${JSON.stringify(modulePath)})[${JSON.stringify(exportName)}];
const probe = new Probe();
probe
  .run({ ...${JSON.stringify(request)}, signal: new AbortController().signal })
  .then(async (outcome) => {
    process.stdout.write(JSON.stringify(outcome));
    if (probe.close) await probe.close();
  });
`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script],
      { uid, gid: uid, cwd: '/', env: { PATH: process.env.PATH ?? '' }, timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`child as uid ${uid} failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as ProbeOutcome);
      },
    );
  });
}
