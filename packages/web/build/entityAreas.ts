import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runnerImport, type Plugin } from 'vite'

const ID = 'virtual:velo-entity-areas'
const RESOLVED = `\0${ID}`
const entitiesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/src/entities')

interface Definition {
  key: string
  path: string
}
type Catalog = typeof import('../../shared/src/entities/catalog')

/**
 * `virtual:velo-entity-areas`: which area's module of definitions holds each entity key, the key at each
 * page path, and a loader per area (a chunk of its own, or the chunk that already imports it). The browser's
 * registry starts empty (shared/src/entities/catalog.browser.ts) and src/entities/areas.ts loads the
 * areas a page needs from this index. The index is read from the definitions themselves, the server's
 * catalogue (shared/src/entities/catalog.ts) run in Node at build time, so no list of keys is kept by hand.
 */
export function entityAreas(): Plugin {
  return {
    name: 'velo-entity-areas',
    resolveId: (source) => (source === ID ? RESOLVED : undefined),
    async load(id) {
      if (id !== RESOLVED) return undefined
      const catalogFile = join(entitiesDir, 'catalog.ts')
      const { module, dependencies } = await runnerImport<Catalog>(catalogFile, { configFile: false, logLevel: 'silent' })
      for (const file of [catalogFile, ...dependencies]) this.addWatchFile(file)
      const areas: [area: string, file: string, entities: Definition[]][] = Object.entries(module.ENTITY_AREAS).map(([area, definitions]) => [
        area,
        join(entitiesDir, `${area}.ts`),
        Object.values(definitions as Record<string, Definition>),
      ])
      // Modules written by Tool system › Code generation are one more area: the built-in definitions no
      // area module holds, loaded from their own list.
      const inAreas = new Set(areas.flatMap(([, , list]) => list))
      const generated = (module.BUILT_IN_ENTITIES as readonly Definition[]).filter((e) => !inAreas.has(e))
      areas.push(['generated', join(entitiesDir, 'generated/index.ts'), generated])
      const files = new Set(readdirSync(entitiesDir).map((f) => join(entitiesDir, f)))
      for (const [area, file] of areas) if (!files.has(file) && area !== 'generated') throw new Error(`entity area ${area}: no file ${file} (an area's name in ENTITY_AREAS is its file's)`)
      const areaOfKey = Object.fromEntries(areas.flatMap(([area, , list]) => list.map((e) => [e.key, area])))
      const keyOfPath = Object.fromEntries(areas.flatMap(([, , list]) => list.map((e) => [e.path, e.key])))
      const loaders = areas.map(([area, file]) =>
        area === 'generated'
          ? `  generated: () => import(${JSON.stringify(file)}).then((m) => Object.fromEntries(m.GENERATED_MODULES.map((g) => [g.entity.key, g.entity]))),`
          : `  ${JSON.stringify(area)}: () => import(${JSON.stringify(file)}),`,
      )
      return [
        `export const AREA_OF_KEY = ${JSON.stringify(areaOfKey)}`,
        `export const KEY_OF_PATH = ${JSON.stringify(keyOfPath)}`,
        `export const LOAD_AREA = {\n${loaders.join('\n')}\n}`,
      ].join('\n')
    },
  }
}
