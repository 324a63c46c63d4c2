import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import { fileURLToPath } from 'node:url'
import velo from './eslint/floors.js'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/dist-*/**', '**/node_modules/**', 'data/**', '**/test-results/**', '**/playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Everywhere, migrations included: the SQL is typed against one Database (server/src/db/schema.ts),
      // code over the tables definitions name uses DynamicDb (db/database.ts), and tests, benches and
      // scripts say what they read of an answer (t.call<T> in server/test/harness.ts; unknown by default).
      '@typescript-eslint/no-explicit-any': 'error',
      'no-control-regex': 'off',
    },
  },
  {
    // The web app's floors, lowest first (eslint/floors.js): helpers, texts, preferences and the
    // loading of entity definitions by area; the signed-in user; the API; the route table; the kits (lists, forms, dashboards); the shell; the
    // pages, one folder per menu area; the app that composes them. OTA's pages build on IoT's (a
    // campaign's devices open the IoT device drawer); IoT › IoT upgrade is OTA's page for the IoT part.
    files: ['packages/web/src/**'],
    plugins: { velo },
    rules: {
      'velo/floors': [
        'error',
        {
          root: fileURLToPath(new URL('./packages/web/src', import.meta.url)),
          floors: [['lib', 'i18n', 'styles', 'preferences', 'test', 'vite-env.d', 'entities'], ['session'], ['api'], ['routes'], ['crud', 'dashboards'], ['layout'], ['pages'], ['app', 'main']],
          areaFolders: ['pages'],
          buildsOn: { 'pages/ota': ['pages/iot'] },
        },
      ],
    },
  },
  {
    // The server's floors, lowest first: configuration and helpers; the database (schema, migrations,
    // drivers); the platform (HTTP, auth, the entity engine, jobs); the MQTT gateway and the operator
    // tools (backup, retention); the modules, one folder per menu area; the seed and the demo data,
    // which fill every area; the app that composes them. Areas that build on another say so here:
    // a bike's frame number comes from an order and an order's numbers bind bikes; the app API serves
    // App content; IoT devices carry the OTA public keys and tell alarms through system messages;
    // repair orders write the bike's history; departments carry the dashboards' country scope; the
    // tools and Monitoring look into IoT.
    files: ['packages/server/src/**'],
    plugins: { velo },
    rules: {
      'velo/floors': [
        'error',
        {
          root: fileURLToPath(new URL('./packages/server/src', import.meta.url)),
          floors: [['config', 'lib'], ['db'], ['platform'], ['gateway', 'ops'], ['modules'], ['seed', 'demo'], ['app', 'main']],
          areaFolders: ['modules'],
          buildsOn: {
            'modules/bike': ['modules/order'],
            'modules/order': ['modules/bike'],
            'modules/app': ['modules/content'],
            'modules/iot': ['modules/content', 'modules/ota'],
            'modules/service': ['modules/bike'],
            'modules/system': ['modules/dashboard'],
            'modules/tool': ['modules/iot'],
            'modules/monitor': ['modules/iot'],
          },
        },
      ],
    },
  },
  {
    // One scheduler (platform/jobs/schedule.ts): work that repeats is a sweep on it (Jobs.every, or an
    // entity's `every:` line), a connection's own keepalive its repeat(); no module starts a timer of its own.
    files: ['packages/server/src/**'],
    ignores: ['packages/server/src/platform/jobs/schedule.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'setInterval', message: 'Repeating work goes through the scheduler: a sweep (jobs.every, or `every:` on the entity), or repeat() for a connection (platform/jobs/schedule.ts).' },
      ],
      'no-restricted-properties': ['error', { object: 'globalThis', property: 'setInterval', message: 'Repeating work goes through the scheduler (platform/jobs/schedule.ts).' }],
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:timers', 'timers', 'node:timers/promises', 'timers/promises'].map((name) => ({
            name,
            importNames: ['setInterval'],
            message: 'Repeating work goes through the scheduler (platform/jobs/schedule.ts).',
          })),
        },
      ],
    },
  },
  {
    files: ['packages/shared/**'],
    rules: {
      // shared runs in the browser and in Node: it imports no app code.
      'no-restricted-imports': ['error', { patterns: ['@velo/server', '@velo/web', '**/server/**', '**/web/**'] }],
    },
  },
)
