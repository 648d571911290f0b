// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import { readdirSync } from 'node:fs';

const WEB = `${import.meta.dirname}/apps/web/src`;
const WEB_FEATURES = readdirSync(`${WEB}/features`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**', 'e2e/artifacts/**', 'test-results/**', 'playwright-report/**', 'apps/server/drizzle/**', '**/*.config.js', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', 'bench/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // dynamic import() edges count (a lazy page that imports the table that lazy-loads it is a circle too)
      'import-x/no-cycle': ['error', { maxDepth: 10, allowUnsafeDynamicCyclicDependency: false }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './packages', from: './apps', message: 'packages never import from apps' },
            { target: './packages/shared', from: './packages/interop', message: 'shared (web and server) does not import interop (server-only: FHIR, HL7, FHIRPath, UCUM)' },
            { target: './apps/web', from: './packages/interop', message: 'the web app does not bundle interop (server-only); it gets results over HTTP' },
            { target: './apps/server', from: './apps/web', message: 'the server does not import the web app' },
            { target: './apps/web', from: './apps/server', message: 'the web app talks to the server over HTTP only' },
            // web layers (docs/web.md): app → routes → pages/features → components/lib. routes/ binds pages to
            // the route table; only the router imports it (a page importing it would close an import circle)
            {
              target: [`${WEB}/{features,lib,components,pages,i18n}/**`, `${WEB}/app/!(router.tsx)`, `${WEB}/*.{ts,tsx}`],
              from: './apps/web/src/routes',
              message: 'only app/router.tsx imports routes/ (the page binding); route metadata and access checks are in lib/routing',
            },
            { target: './apps/web/src/features', from: './apps/web/src/app', message: 'the app shell composes features; features do not import app/ (shared pieces live in lib/ or components/)' },
            { target: ['./apps/web/src/lib', './apps/web/src/components'], from: ['./apps/web/src/features', './apps/web/src/app', './apps/web/src/pages'], message: 'lib/ and components/ import no feature, page or app module' },
            // a feature uses another feature only through that feature's index.ts
            ...WEB_FEATURES.map((f) => ({
              target: `${WEB}/features/${f}/**`,
              from: `${WEB}/features/!(${f})/**`,
              except: [`${WEB}/features/*/index.ts`],
              message: `a feature imports another feature only through its index.ts (features/<name>/index.ts)`,
            })),
            // the server's db layer knows no module (the demo seed uses the modules, so it lives in src/seed)
            { target: './apps/server/src/db', from: './apps/server/src/modules', message: 'db/ imports nothing from modules/' },
          ],
        },
      ],
    },
    settings: {
      // without the TypeScript extensions import-x reads no .ts/.tsx module, and no-cycle sees nothing
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['packages/*/tsconfig.json', 'apps/*/tsconfig.json', 'e2e/tsconfig.json'] })],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/test/**', 'e2e/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
);
