import { ESLint } from 'eslint'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The web's floors and areas are a lint rule (eslint/floors.js, configured in eslint.config.js): these
// are the crossings it must refuse, linted as files at those places with the project's configuration.
// Vitest runs in packages/web (its config's folder); jsdom's URL cannot turn import.meta.url into a path.
const repo = resolve(process.cwd(), '../..')
const src = resolve(process.cwd(), 'src') + '/'
const eslint = new ESLint({ cwd: repo })

async function floorsErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${src}${path}` })
  return result!.messages.filter((m) => m.ruleId === 'velo/floors').map((m) => m.message)
}

describe('floors and areas of the web app', () => {
  it('refuses a lower floor importing an upper one', async () => {
    expect(await floorsErrors('api/zz.ts', "import { x } from '../crud/EntityListPage'\nexport const y = x\n")).toEqual([expect.stringMatching(/^api is on floor 3 and may not import crud \(floor 5\)/)])
    expect(await floorsErrors('layout/zz.ts', "export { App } from '../app/App'\n")).toEqual([expect.stringMatching(/^layout .* may not import app/)])
  })

  it('refuses one menu area importing another, unless it is declared to build on it', async () => {
    expect(await floorsErrors('pages/iot/zz.ts', "import { x } from '../ota/PartPage'\nexport const y = x\n")).toEqual([expect.stringMatching(/^pages\/iot may not import pages\/ota/)])
    expect(await floorsErrors('pages/ota/zz.ts', "import { x } from '../iot/LiveIndicator'\nexport const y = x\n")).toEqual([])
  })

  it('allows the same floor, floors below and on-demand imports of what is above', async () => {
    expect(await floorsErrors('pages/system/zz.ts', "import { x } from '../../crud/EntityListPage'\nimport { y } from './user/index'\nexport const z = [x, y]\n")).toEqual([])
    expect(await floorsErrors('routes/zz.ts', "export const load = () => import('../crud/EntityListPage')\n")).toEqual([])
  })
})
