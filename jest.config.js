/** One runner for every suite: unit (beside the code), API and CLI (apps/monitor/test), browser (e2e). */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2024',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

// ESM-only packages that run under Node's require(esm) but must be compiled for jest's loader.
const esmPackages = ['content-disposition', '@noble/hashes', '@scure/base', 'badge-maker'];

const common = {
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${esmPackages.join('|')})/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@monitor/(domain|contracts|probes|notifiers)$': '<rootDir>/libs/$1/src',
    '^@monitor/(domain|contracts|probes|notifiers)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
};

const postgres = {
  ...common,
  globalSetup: '<rootDir>/apps/monitor/test/support/pg-global-setup.ts',
  globalTeardown: '<rootDir>/apps/monitor/test/support/pg-global-teardown.ts',
  setupFiles: ['<rootDir>/apps/monitor/test/support/pg-backend-env.ts'],
  // The harness's own tests start their own clusters; once, in the cli project, is enough.
  testPathIgnorePatterns: [
    '/node_modules/',
    '/test/api/postgres-outage\\.spec\\.ts$',
    // SQLite by nature: the .db file, its PRAGMAs and query plans, a full tmpfs, a SQLite trigger.
    '/test/api/(database|disk-full|write-failures)\\.spec\\.ts$',
    // SQLite by nature: another application's .db file, its journal and application_id. The
    // PostgreSQL counterpart (another application's tables) is in postgres-storage.spec.ts.
    '/test/cli/foreign-database\\.spec\\.ts$',
    '/test/cli/(postgres-cluster|postgres-names|pg-jest-projects|postgres-storage|postgres-backup|postgres-restart)\\.spec\\.ts$',
  ],
};

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/monitor/src/**/*.spec.ts',
        '<rootDir>/scripts/**/*.spec.ts',
      ],
    },
    { ...common, displayName: 'api', testMatch: ['<rootDir>/apps/monitor/test/api/**/*.spec.ts'] },
    { ...common, displayName: 'cli', testMatch: ['<rootDir>/apps/monitor/test/cli/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/e2e/**/*.spec.ts'] },
    // The API and CLI suites again with the app on PostgreSQL: one throw-away cluster per jest run
    // (globalSetup, shared by both projects, runs once), a fresh database per testDatabaseUrl() call.
    { ...postgres, displayName: 'api-pg', testMatch: ['<rootDir>/apps/monitor/test/api/**/*.spec.ts'] },
    { ...postgres, displayName: 'cli-pg', testMatch: ['<rootDir>/apps/monitor/test/cli/**/*.spec.ts'] },
  ],
};
