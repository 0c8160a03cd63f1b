// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.angular/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
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
    // Layering: libs never import the application; domain code stays free of Nest and I/O.
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@nestjs/*', 'typeorm', 'better-sqlite3', 'node:fs', 'fs'],
              message: 'libs stay pure: no app, Nest, database or file system imports',
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
