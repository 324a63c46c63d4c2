import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'
import { entityAreas } from './build/entityAreas'
import { menuIconSprite } from './build/menuIconSprite'
import { antdStaticStyles } from './build/antdStaticStyles'

/**
 * Files that change what a later file in the same worker would see: they mock modules (vi.mock) or
 * keep module state of their own. Each runs in a fresh module graph; every other file shares its
 * worker's, so antd, the definitions and the setup's imports load once per worker instead of once
 * per file (the suite took 6 minutes on two loaded cores, 2.5 this way).
 */
const ISOLATED = [
  'src/api/eventStream.test.ts',
  'src/api/http.test.ts',
  'src/entities/areas.test.tsx',
  'src/pages/ota/upgrade/commit.test.tsx',
  'src/pages/ota/upgrade/upgrade.test.tsx',
  'src/pages/login/passkeys.test.tsx',
  'src/pages/tool/sql/sql-page-editor.test.tsx',
]

export default defineConfig({
  plugins: [react(), entityAreas(), menuIconSprite(), antdStaticStyles()],
  test: {
    environment: 'jsdom',
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'shared', include: ['src/**/*.test.{ts,tsx}'], exclude: ISOLATED, isolate: false } },
    ],
    setupFiles: ['src/test/setup.ts'],
    // Whole pages in jsdom (antd tables, dialogs, several user steps) take seconds on a loaded 2-core
    // CI machine; 5 s failed them there while they pass in 1–2 s on a quiet one.
    testTimeout: 20_000,
    // Vitest's default is one worker on two cores; two took the suite from 6.5 to 4.3 minutes there.
    maxWorkers: 2,
  },
})
