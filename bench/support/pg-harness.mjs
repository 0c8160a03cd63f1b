// The tests' PostgreSQL harness (apps/monitor/test/support/postgres-cluster.ts) for plain .mjs
// benchmarks: .ts files are compiled with @swc/core on require, as jest does for the tests.
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

if (!Module._extensions['.ts']) {
  const swc = require('@swc/core');
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}

/** @type {{ startPostgresCluster: () => Promise<import('../../apps/monitor/test/support/postgres-cluster').PgCluster> }} */
export const { startPostgresCluster } = require(
  join(repoRoot, 'apps/monitor/test/support/postgres-cluster.ts'),
);
