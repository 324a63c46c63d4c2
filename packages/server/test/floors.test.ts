import { ESLint } from 'eslint'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The server's floors and areas, and its one scheduler, are lint rules (eslint/floors.js and
// no-restricted-globals, configured in eslint.config.js): these are the crossings they must refuse,
// linted as files at those places with the project's configuration.
const repo = fileURLToPath(new URL('../../..', import.meta.url))
const src = resolve(repo, 'packages/server/src') + '/'
const eslint = new ESLint({ cwd: repo })

async function errors(path: string, code: string, rule = 'velo/floors'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${src}${path}` })
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message)
}

describe('floors and areas of the server', () => {
  it('refuses a lower floor importing an upper one', async () => {
    expect(await errors('db/zz.ts', "import { t } from '../platform/i18n'\nexport const y = t\n")).toEqual([expect.stringMatching(/^db is on floor 2 and may not import platform \(floor 3\)/)])
    expect(await errors('platform/zz.ts', "import type { Iot } from '../gateway'\nexport type Y = Iot\n")).toEqual([expect.stringMatching(/^platform .* may not import gateway/)])
    expect(await errors('ops/maintenance/zz.ts', "export { registerCollections } from '../../modules/iot/collections'\n")).toEqual([expect.stringMatching(/^ops .* may not import modules\/iot/)])
    expect(await errors('modules/system/zz.ts', "import { seed } from '../../seed'\nexport const y = seed\n")).toEqual([expect.stringMatching(/^modules\/system .* may not import seed/)])
  })

  it('refuses one menu area importing another, unless it is declared to build on it', async () => {
    expect(await errors('modules/ota/zz.ts', "import { registerWarnings } from '../iot/warnings'\nexport const y = registerWarnings\n")).toEqual([expect.stringMatching(/^modules\/ota may not import modules\/iot/)])
    expect(await errors('modules/iot/zz.ts', "import { otaPublicKeysOf } from '../ota/signing'\nexport const y = otaPublicKeysOf\n")).toEqual([])
  })

  it('allows the same floor and the floors below', async () => {
    expect(await errors('seed/zz.ts', "import { newRegistrationKey } from '../gateway/device-auth'\nimport { seedMessageConfigs } from '../modules/iot/warnings/defaults'\nexport const y = [newRegistrationKey, seedMessageConfigs]\n")).toEqual([])
    expect(await errors('db/zz.ts', "import { yieldWhenDue } from '../lib/event-loop'\nexport const y = yieldWhenDue\n")).toEqual([])
  })

  it('refuses a timer that repeats outside the scheduler', async () => {
    expect(await errors('modules/iot/zz.ts', 'export const timer = setInterval(() => undefined, 1000)\n', 'no-restricted-globals')).toEqual([expect.stringMatching(/^Unexpected use of 'setInterval'\. Repeating work goes through the scheduler/)])
    expect(await errors('platform/zz.ts', "import { setInterval as every } from 'node:timers'\nexport const timer = every(() => undefined, 1000)\n", 'no-restricted-imports')).toHaveLength(1)
  })
})
