import { existsSync } from 'node:fs'
import { defineConfig } from '@playwright/test'

/** Debian's headless shell (package chromium-headless-shell), the browser Playwright itself runs headless; else Debian's Chromium. */
const DEBIAN_CHROMIUM = ['/usr/lib/chromium/chromium-headless-shell', '/usr/lib/chromium/chromium'].find((path) => existsSync(path))

// End-to-end tests in Debian's Chromium against the real server, which serves the built web app
// from packages/web/dist on a fresh SQLite database. Build first: `npm run build` at the root.
const PORT = Number(process.env.E2E_PORT ?? 18080)
/**
 * Two workers, each with a server and database of its own (ports PORT, PORT + 10, …): the specs of
 * one worker run one after another, as if alone. The two cores were 60 % busy with one worker (the
 * server, Chromium and Playwright wait on each other); two took the run from 10 to about 6 minutes.
 */
const WORKERS = Number(process.env.E2E_WORKERS ?? 2)
/** This worker's server (support/server.ts): Playwright loads this file again in each worker, with its slot set. */
export const serverPortOf = (slot: number) => PORT + 10 * slot
const SLOT = Number(process.env.TEST_PARALLEL_INDEX ?? 0)
/** A second server with the captcha on, for the specs of the captcha itself. */
export const CAPTCHA_PORT = PORT + 1
/** How every spec launches Chromium; a spec that adds arguments of its own starts from these. */
export const LAUNCH_OPTIONS = {
  // Debian's browser itself, not its /usr/bin scripts: they add flags for a desktop (GPU rasterization,
  // which headless does in SwiftShader, and extensions) that cost CPU in every test. The headless shell
  // has no browser around the page: two specs took 157 CPU seconds in it against 187 in the full browser.
  executablePath: process.env.CHROMIUM_PATH ?? DEBIAN_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
}

export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  workers: WORKERS,
  // A file's tests share what they make (a model, a device) and run in order, in one worker.
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${serverPortOf(SLOT)}`,
    viewport: { width: 1400, height: 900 },
    locale: 'en-US',
    // As staff who ask their system for less motion: dialogs, drawers and menus open at once. A click
    // while a dialog still zoomed in could miss its button on a busy machine (the OK of a step's
    // confirmation, once in CI); the console's behaviour is the same with motion or without.
    reducedMotion: 'reduce',
    // A trace records every step (a third of the browser tests' CPU here); kept for a failure to open
    // locally. CI keeps only its log, where no trace is ever opened: there it is off.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    launchOptions: LAUNCH_OPTIONS,
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    ...Array.from({ length: WORKERS }, (_, slot) => ({
      command: 'node e2e/support/start-server.mjs',
      url: `http://localhost:${serverPortOf(slot)}/api/common/features`,
      // The brokers' ports follow the web ports (18883, 18893, … and 18884 by default), so a second run on other ports does not clash.
      env: { E2E_PORT: String(serverPortOf(slot)), E2E_MQTT_PORT: String(serverPortOf(slot) + 803) },
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore' as const,
      stderr: 'pipe' as const,
    })),
    {
      command: 'node e2e/support/start-server.mjs',
      url: `http://localhost:${CAPTCHA_PORT}/api/common/features`,
      env: { E2E_PORT: String(CAPTCHA_PORT), E2E_MQTT_PORT: String(PORT + 804), E2E_CAPTCHA: 'true' },
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
})
