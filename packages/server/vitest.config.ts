import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file builds its own app on its own database; two workers fit this machine's two cores.
    maxWorkers: 2,
  },
})
