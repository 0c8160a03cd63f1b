// @ts-check
import { readdirSync } from 'node:fs';
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * Storage ownership (issue 15): each feature folder of apps/monitor/src owns its tables.
 * (a) A feature never imports another feature's entity file (entities are its own business; a
 *     feature's repository and row functions are what it offers the others). Entity files may
 *     name each other: their relations mirror the foreign keys the migrations declare.
 * (b) Only core/database, *.repository.ts files (a feature's injectable repository) and *.sql.ts
 *     files (plain functions of SQL text, for both dialects) touch the driver or TypeORM's connection
 *     objects, or unwrap a transaction handle; specs may (they check what was stored).
 */
const SERVER = 'apps/monitor/src';
const FEATURES = readdirSync(new URL(`./${SERVER}/`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'core')
  .map((entry) => entry.name);

/** The files that hold a feature's storage code: its repository class and its SQL functions. */
const STORAGE_FILES = ['**/*.repository.ts', '**/*.sql.ts'];
const DRIVER_ONLY = 'only core/database, *.repository.ts and *.sql.ts files use the driver';

const DRIVER_PATHS = [
  { name: 'better-sqlite3', message: DRIVER_ONLY },
  { name: 'pg', message: DRIVER_ONLY },
  {
    name: 'typeorm',
    importNames: ['DataSource', 'EntityManager', 'QueryRunner'],
    message: 'only core/database, *.repository.ts and *.sql.ts files reach the connection: call a repository',
  },
];
const DRIVER_PATTERNS = [
  { regex: '^typeorm/driver/', message: DRIVER_ONLY },
  { regex: '/core/database/sqlite-handle$', message: DRIVER_ONLY },
  {
    regex: '/core/database/(tx|unit-of-work)$',
    importNames: ['connectionOf', 'syncTxOf'],
    message: 'a transaction handle is opened only by a repository: pass it to one',
  },
];
/** Another feature's entity file, reached upwards from anywhere inside `feature`. */
const otherEntity = (feature) => ({
  regex: `^(\\.\\./)+(?!${feature}/)[\\w-]+/(.+/)?[\\w.-]+\\.entity(\\.ts)?$`,
  message: `${feature} may not import another feature's entity: call that feature's repository or service`,
});
const restricted = (paths, patterns) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });

const storageOwnership = [
  { files: [`${SERVER}/*.ts`], ignores: ['**/*.spec.ts'], rules: restricted(DRIVER_PATHS, DRIVER_PATTERNS) },
  ...FEATURES.flatMap((feature) => [
    {
      files: [`${SERVER}/${feature}/**/*.ts`],
      ignores: ['**/*.spec.ts', ...STORAGE_FILES, '**/*.entity.ts'],
      rules: restricted(DRIVER_PATHS, [...DRIVER_PATTERNS, otherEntity(feature)]),
    },
    {
      files: STORAGE_FILES.map((glob) => `${SERVER}/${feature}/${glob}`),
      rules: restricted([], [otherEntity(feature)]),
    },
    { files: [`${SERVER}/${feature}/**/*.entity.ts`], rules: restricted(DRIVER_PATHS, DRIVER_PATTERNS) },
  ]),
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'test-output/**',
      'node_modules/**',
      '.angular/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Layering: libs never import the application; domain code and contracts stay free of I/O.
    files: ['libs/domain/**/*.ts', 'libs/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/apps/**',
                '@nestjs/*',
                'typeorm',
                'better-sqlite3',
                'node:fs',
                'fs',
                'node:net',
                'net',
              ],
              message: 'domain code and contracts stay pure: no app, Nest, database, file or network imports',
            },
          ],
        },
      ],
    },
  },
  {
    // Probes and notifiers are plugins at the edge: network and files yes, the app and Nest no.
    files: ['libs/probes/**/*.ts', 'libs/notifiers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@nestjs/*', 'typeorm', 'better-sqlite3'],
              message: 'libs never import the app, Nest or the database',
            },
          ],
        },
      ],
    },
  },
  ...storageOwnership,
  {
    files: ['frontend/**/*.ts'],
    languageOptions: {
      parserOptions: { project: './frontend/tsconfig.app.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // A feature reaches the API through its own *.api.ts: one typed method per endpoint, no URL strings elsewhere.
    files: ['frontend/src/app/features/**/*.ts', 'frontend/src/app/shared/**/*.ts'],
    ignores: ['**/*.api.ts'],
    rules: restricted(
      [],
      [
        {
          group: ['**/core/api/api-client.service'],
          message: "call the API through the feature's own *.api.ts",
        },
      ],
    ),
  },
);
