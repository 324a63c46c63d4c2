import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FILE_RESERVE, fileLimitShortfall, MIN_EXPECTED_DEVICES, parseOpenFileLimits, readOpenFileLimits } from '../src/gateway/file-limit'

// Each device on the embedded broker holds a file descriptor: at 20,000 devices under a limit of
// 20,000 the broker accepted and dropped connections in a loop, and nothing said why.

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             unlimited            unlimited            bytes
Max processes             63672                63672                processes
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`

describe('open-file limit', () => {
  it('reads the soft and hard limit of "Max open files", unlimited as Infinity', () => {
    expect(parseOpenFileLimits(LIMITS)).toEqual({ soft: 20000, hard: 20000 })
    expect(parseOpenFileLimits(LIMITS.replace('20000                20000', '1024                 unlimited'))).toEqual({ soft: 1024, hard: Infinity })
    expect(parseOpenFileLimits('Max cpu time unlimited unlimited seconds\n')).toBeNull()
    expect(parseOpenFileLimits('Max open files            many                 more                 files\n')).toBeNull()
  })

  it('warns when the limit is below the registered fleet plus the reserve, or below the documented minimum', () => {
    // This machine: 20,000 files and 20,000 devices, the case that stalled the broker.
    expect(fileLimitShortfall({ soft: 20000, hard: 20000 }, 20000)).toEqual({ limit: 20000, hard: 20000, devices: 20000 - FILE_RESERVE, expected: 20000, needed: 20000 + FILE_RESERVE })
    // A fresh install at the common default of 1,024 is told at its first start, before any device registers.
    expect(fileLimitShortfall({ soft: 1024, hard: 4096 }, 0)).toMatchObject({ devices: 0, expected: MIN_EXPECTED_DEVICES })
    expect(fileLimitShortfall({ soft: 20000, hard: 20000 }, 2000)).toBeNull()
    expect(fileLimitShortfall({ soft: 1_048_576, hard: 1_048_576 }, 200_000)).toBeNull()
    expect(fileLimitShortfall({ soft: Infinity, hard: Infinity }, 5_000_000)).toBeNull()
    expect(fileLimitShortfall({ soft: MIN_EXPECTED_DEVICES + FILE_RESERVE, hard: Infinity }, 0)).toBeNull()
  })

  it('reads a limits file, and skips one it cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-limits-'))
    try {
      const file = join(dir, 'limits')
      writeFileSync(file, LIMITS)
      const read = readOpenFileLimits(file)
      if (process.platform === 'linux') expect(read).toEqual({ soft: 20000, hard: 20000 })
      else expect(read).toBeNull()
      expect(readOpenFileLimits(join(dir, 'missing'))).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
