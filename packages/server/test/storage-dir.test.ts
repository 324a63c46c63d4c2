import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestApp } from './harness'

describe('STORAGE_DIR', () => {
  const base = mkdtempSync(join(tmpdir(), 'velo-storage-'))
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('is created at the first start, readable by the server alone', async () => {
    const storage = join(base, 'data', 'files')
    expect(existsSync(storage)).toBe(false)
    const t = await createTestApp({ STORAGE_DIR: storage })
    try {
      expect(statSync(storage).isDirectory()).toBe(true)
      if (process.platform !== 'win32') expect(statSync(storage).mode & 0o777).toBe(0o700)
    } finally {
      await t.close()
    }
  })
})
