import * as fs from 'node:fs';
import * as path from 'node:path';
import { readStoredRows } from '../api/support/concurrency';
import { runCli, tempDir } from '../support/server-process';
import { requireBuiltExecutable } from './cli-support';

/** `monitor seed --demo` against the built executable: the sample set lands in the data dir. */
jest.setTimeout(60_000);

describe('monitor seed --demo', () => {
  let dataDir: string;

  beforeAll(() => requireBuiltExecutable());
  beforeEach(() => (dataDir = tempDir()));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const sampleRows = async () =>
    (
      await readStoredRows<{ sensors: number; sites: number; results: number }>(
        dataDir,
        `SELECT (SELECT count(*) FROM sensors WHERE sample = TRUE) AS sensors,
           (SELECT count(*) FROM sites WHERE sample = TRUE) AS sites,
           (SELECT count(*) FROM probe_results) AS results`,
      )
    )[0];

  it('loads the sample installation, and a second run adds nothing', async () => {
    const first = await runCli(['seed', '--demo', '--data-dir', dataDir]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^sample data: 10 sensors, 3 sites, \d+ results, \d+ incidents$/m);
    const loaded = await sampleRows();
    expect(loaded).toMatchObject({ sensors: 10, sites: 3 });
    expect(loaded.results).toBeGreaterThan(20_000);

    const second = await runCli(['seed', '--demo', '--data-dir', dataDir]);
    expect(second.code).toBe(0);
    expect(await sampleRows()).toEqual(loaded);
  });

  it('refuses without --demo, and on an installation configured from a file', async () => {
    const bare = await runCli(['seed', '--data-dir', dataDir]);
    expect(bare.code).not.toBe(0);
    expect(bare.stdout + bare.stderr).toContain('seed needs --demo');

    const config = path.join(dataDir, 'monitor.yaml');
    fs.writeFileSync(config, 'sites:\n  - name: HQ\n    kind: local\n');
    const filed = await runCli(['seed', '--demo', '--data-dir', dataDir, '--config', config]);
    expect(filed.code).not.toBe(0);
    expect(filed.stdout + filed.stderr).toContain(
      'this installation is configured from a file: sample data cannot be loaded',
    );
  });
});
