// Lint configuration: typescript-eslint's recommended rules, zero warnings in CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import layers from './scripts/lint-layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'migrations/**', 'coverage/**', 'docs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        document: 'readonly',
        window: 'readonly',
        EventSource: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      // One driver module picks the better-sqlite3 build that is safe on the running Node (src/stores/sqlite/driver.ts):
      // a direct import would load the other one, which aborts Node 24 or is not built for it.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              message: 'import { Database } from src/stores/sqlite/driver.js',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  // Imports point down the layers and never go round in a circle (scripts/lint-layers.js; CONTRIBUTING.md, "The layers").
  {
    files: ['src/**/*.ts', 'channels/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,js}'],
    plugins: { layers },
    rules: { 'layers/point-down': 'error', 'layers/no-cycle': 'error' },
  },
  { files: ['src/stores/sqlite/driver.ts'], rules: { '@typescript-eslint/no-restricted-imports': 'off' } },
  // The bin is CommonJS (bin/package.json): an ES module entry costs every `claude-hook` call its loader's start-up.
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Last: turns off the stylistic rules that Prettier owns, so the two never argue (`npm run format`).
  prettier,
);
