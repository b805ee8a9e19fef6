import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import architecture from './eslint-rules/architecture.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'storage/**',
      'docs/**',
      'coverage/**',
      'clients/typescript/dist/**',
      'clients/typescript/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Type-aware rules over the TypeScript sources: promises, exhaustive switches, needless casts.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'migrations/**/*.ts', 'clients/typescript/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { architecture },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/require-await': 'error',
      'architecture/no-foreign-entity': 'error',
      'architecture/no-foreign-repository': 'error',
      'architecture/no-connection-in-services': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name=/^(DomainError|ValidationError)$/]',
          message: 'Build DomainError/ValidationError in the feature’s *.errors.ts (or src/common): one place names each error code.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.errors.ts', 'src/common/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['src/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'typeorm', message: 'Controllers call services; data access lives in repositories.' },
            { name: '@nestjs/typeorm', message: 'Controllers call services; data access lives in repositories.' },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', '*.mjs', 'eslint-rules/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // The TypeScript client's tests read typed answers as they come: no `as` casts.
    files: ['test/client/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }] },
  },
  {
    files: ['migrations/**/*.ts'],
    rules: { quotes: 'off' },
  },
);
