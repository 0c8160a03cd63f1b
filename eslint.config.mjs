// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    files: ['frontend/**/*.ts'],
    languageOptions: {
      parserOptions: { project: './frontend/tsconfig.app.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
