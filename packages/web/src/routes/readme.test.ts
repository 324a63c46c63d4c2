import { describe, expect, it } from 'vitest'
import { readFileSync, existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MENU_CATALOGUE } from '@velo/shared'
import { resolvePage } from './pageRegistry'

// The README is what a new admin reads first: it must not promise pages the build lacks, nor point
// at files a clone does not have.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..')
const readme = readFileSync(resolve(root, 'README.md'), 'utf8')

const pages = MENU_CATALOGUE.flatMap((area) => (area.children ?? []).filter((c) => c.component))

describe('the README', () => {
  it('says how many menu pages are built, and that count is what the build has', () => {
    const built = pages.filter((p) => resolvePage(p.component as string) !== null)
    const claim = /(\d+) of the (\d+) menu pages work/.exec(readme)
    expect(claim, 'README states "N of the M menu pages work"').not.toBeNull()
    expect(Number(claim?.[1])).toBe(built.length)
    expect(Number(claim?.[2])).toBe(pages.length)
  })

  it('links only to files inside the clone', () => {
    const links = [...readme.matchAll(/\]\(([^)#]+)\)|`(\.\.\/[^`]+)`/g)].flatMap((m) => [m[1] ?? m[2] ?? ""].filter(Boolean))
    for (const link of links) {
      if (/^[a-z]+:/.test(link)) continue
      expect(existsSync(resolve(root, link)), `README link ${link}`).toBe(true)
    }
    expect(readme).not.toMatch(/\.\.\/shared\//)
  })
})
