import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'
import { entityAreas } from './build/entityAreas'
import { menuIconSprite } from './build/menuIconSprite'
import { antdStaticStyles } from './build/antdStaticStyles'

export default defineConfig({
  plugins: [react(), entityAreas(), menuIconSprite(), antdStaticStyles()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Whole pages in jsdom (antd tables, dialogs, several user steps) take seconds on a loaded 2-core
    // CI machine; 5 s failed them there while they pass in 1–2 s on a quiet one.
    testTimeout: 20_000,
    // Vitest's default is one worker on two cores; two took the suite from 6.5 to 4.3 minutes there.
    maxWorkers: 2,
  },
})
