import { defineConfig } from 'vitest/config'

/**
 * Files that change what every later file in the same process would see: they register entities
 * or modules of their own (a test ticket, a generated module), mock modules, or rebuild the registry.
 * They run each in a fresh module graph. Every other file shares its worker's: the server's modules
 * are loaded once per worker instead of once per file (~3 s each), which took the suite from ~10 to
 * ~4 minutes on two cores. A new file that registers or mocks anything belongs here.
 */
const ISOLATED = [
  'engine',
  'engine2-module',
  'files-kind',
  'generated-modules',
  'iot-config',
  'related-summary',
  'schema-agreement',
  'tool-gen',
  'iot-mq-debug',
  'hostile-requests',
  'sessions',
  'sign-in',
].map((name) => `test/${name}.test.ts`)

const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
}

export default defineConfig({
  test: {
    // Each file builds its own app on its own database; two workers fit this machine's two cores.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { ...common, name: 'isolated', include: ISOLATED, isolate: true } },
      // One migrated and seeded database that each test app copies (test/template-database.ts). Not for
      // the isolated files: what they register or mock changes what the seed writes.
      { extends: true, test: { ...common, name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false, globalSetup: ['test/template-database.ts'] } },
    ],
  },
})
