import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The storage-ownership rule of eslint.config.mjs, run as `npm run lint` runs it: source text is
 * linted with ESLint's API (new ESLint({ cwd }), lintText with a path inside a feature folder)
 * and only that rule's findings count. ESLint loads its .mjs configuration with a dynamic import,
 * which jest's module sandbox does not offer, so the API runs in a child node process.
 */
const root = path.resolve(__dirname, '..');

const RUNNER = `
import { ESLint } from 'eslint';
import * as path from 'node:path';
const { root, cases, lintTree } = JSON.parse(await new Promise((resolve) => {
  let text = '';
  process.stdin.on('data', (chunk) => (text += chunk)).on('end', () => resolve(text));
}));
const eslint = new ESLint({ cwd: root });
const pick = (messages) => messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
const answers = [];
for (const { file, text } of cases) {
  const [result] = await eslint.lintText(text, { filePath: path.join(root, 'apps/monitor/src', file) });
  answers.push(pick(result.messages));
}
const tree = lintTree
  ? (await eslint.lintFiles([path.join(root, 'apps/monitor/src')])).flatMap((r) =>
      pick(r.messages).map((m) => path.relative(root, r.filePath) + ': ' + m))
  : [];
process.stdout.write(JSON.stringify({ answers, tree }));
`;

interface Case {
  file: string;
  text: string;
}

function lint(cases: Case[], lintTree = false): { answers: string[][]; tree: string[] } {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', RUNNER], {
    cwd: root,
    input: JSON.stringify({ root, cases, lintTree }),
    // With CI=true typescript-eslint assumes one run over files on disk and parses those instead of
    // the crafted text; this run lints text that differs from the file at the same path.
    env: { ...process.env, TSESTREE_SINGLE_RUN: 'false' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out.toString()) as { answers: string[][]; tree: string[] };
}

const CASES = {
  crossEntity: {
    file: 'sensors/sensors.service.ts',
    text: "import { SiteEntity } from '../sites/site.entity';\nexport const x = SiteEntity;\n",
  },
  crossEntityNested: {
    file: 'sensors/dto/sensor.dto.ts',
    text: "import { ChannelEntity } from '../../channels/channel.entity';\nexport const x = ChannelEntity;\n",
  },
  crossEntityInRepository: {
    file: 'maintenance/maintenance.repository.ts',
    text: "import { SensorEntity } from '../sensors/sensor.entity';\nexport const x = SensorEntity;\n",
  },
  crossEntityInSql: {
    file: 'incidents/incident-rows.sql.ts',
    text: "import { SensorEntity } from '../sensors/sensor.entity';\nexport const x = SensorEntity;\n",
  },
  driver: {
    file: 'sites/sites.service.ts',
    text: "import Database from 'better-sqlite3';\nexport const x = Database;\n",
  },
  pg: { file: 'history/history.service.ts', text: "import { Pool } from 'pg';\nexport const x = Pool;\n" },
  connection: {
    file: 'users/users.service.ts',
    text: "import { DataSource, EntityManager, QueryRunner } from 'typeorm';\nexport const x = [DataSource, EntityManager, QueryRunner];\n",
  },
  handle: {
    file: 'examples/examples.service.ts',
    text: "import { sqliteHandle } from '../core/database/sqlite-handle';\nexport const x = sqliteHandle;\n",
  },
  unwrap: {
    file: 'sites/sites.service.ts',
    text: "import { connectionOf, type SyncTx } from '../core/database/unit-of-work';\nexport const x = (tx: SyncTx) => connectionOf(tx);\n",
  },
  allowedInService: {
    file: 'sensors/sensors.service.ts',
    text: [
      "import { SensorEntity } from './sensor.entity';",
      "import { SitesRepository } from '../sites/sites.repository';",
      "import { UnitOfWork, type Tx } from '../core/database/unit-of-work';",
      "import { In } from 'typeorm';",
      'export const x = [SensorEntity, SitesRepository, UnitOfWork, In];',
      'export type T = Tx;',
      '',
    ].join('\n'),
  },
  allowedInRepository: {
    file: 'sites/sites.repository.ts',
    text: [
      "import Database from 'better-sqlite3';",
      "import { DataSource } from 'typeorm';",
      "import { connectionOf } from '../core/database/unit-of-work';",
      "import { SiteEntity } from './site.entity';",
      'export const x = [Database, DataSource, connectionOf, SiteEntity];',
      '',
    ].join('\n'),
  },
  allowedInSql: {
    file: 'sites/site-rows.sql.ts',
    text: [
      "import Database from 'better-sqlite3';",
      "import { DataSource } from 'typeorm';",
      "import { connectionOf } from '../core/database/unit-of-work';",
      "import { SiteEntity } from './site.entity';",
      'export const x = [Database, DataSource, connectionOf, SiteEntity];',
      '',
    ].join('\n'),
  },
  driverInPlainFile: {
    file: 'backup/api-key-rows.ts',
    text: "import Database from 'better-sqlite3';\nexport const x = Database;\n",
  },
  entityRelation: {
    file: 'sensors/sensor.entity.ts',
    text: "import { SiteEntity } from '../sites/site.entity';\nexport const x = SiteEntity;\n",
  },
} satisfies Record<string, Case>;

jest.setTimeout(120_000);

describe('storage ownership lint rule', () => {
  const found: Partial<Record<keyof typeof CASES, string[]>> = {};
  let tree: string[] = [];

  beforeAll(() => {
    const names = Object.keys(CASES) as (keyof typeof CASES)[];
    const result = lint(
      names.map((name) => CASES[name]),
      true,
    );
    names.forEach((name, i) => (found[name] = result.answers[i]));
    tree = result.tree;
  });

  it("reports a feature importing another feature's entity", () => {
    expect(found.crossEntity).toEqual([
      expect.stringContaining("sensors may not import another feature's entity"),
    ]);
  });

  it('reports it from a nested folder of the feature and from a repository or SQL file too', () => {
    expect(found.crossEntityNested).toHaveLength(1);
    expect(found.crossEntityInRepository).toHaveLength(1);
    expect(found.crossEntityInSql).toHaveLength(1);
  });

  it('reports the driver or the connection outside core/database, the repositories and SQL files', () => {
    expect(found.driver).toEqual([
      expect.stringContaining('only core/database, *.repository.ts and *.sql.ts files'),
    ]);
    expect(found.driverInPlainFile).toHaveLength(1);
    expect(found.pg).toHaveLength(1);
    expect(found.connection).toHaveLength(3);
    expect(found.handle).toHaveLength(1);
    expect(found.unwrap).toEqual([
      expect.stringContaining('a transaction handle is opened only by a repository'),
    ]);
  });

  it("allows a feature's own entity, another feature's repository, and the driver inside a repository or SQL file", () => {
    expect(found.allowedInService).toEqual([]);
    expect(found.allowedInRepository).toEqual([]);
    expect(found.allowedInSql).toEqual([]);
    expect(found.entityRelation).toEqual([]);
  });

  it('finds nothing in the source as it stands', () => {
    expect(tree).toEqual([]);
  });
});

/** Every file of apps/monitor/src whose name ends in `suffix`, relative to it. */
function sourceFiles(suffix: string): string[] {
  const src = path.join(root, 'apps/monitor/src');
  return (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith(suffix)).sort();
}

const INJECTABLE_CLASS = /@Injectable\(\)\s*export class \w+Repository\b/;

describe('storage file names', () => {
  it('a *.repository.ts file is an injectable repository class', () => {
    const files = sourceFiles('.repository.ts');
    expect(files.length).toBeGreaterThan(0);
    const plain = files.filter(
      (file) => !INJECTABLE_CLASS.test(readFileSync(path.join(root, 'apps/monitor/src', file), 'utf8')),
    );
    expect(plain).toEqual([]);
  });

  it('a *.sql.ts file holds plain functions, no injectable class', () => {
    const files = sourceFiles('.sql.ts');
    expect(files.length).toBeGreaterThan(0);
    const injectable = files.filter((file) =>
      readFileSync(path.join(root, 'apps/monitor/src', file), 'utf8').includes('@Injectable'),
    );
    expect(injectable).toEqual([]);
  });
});
