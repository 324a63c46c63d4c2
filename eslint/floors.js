import { dirname, relative, resolve, sep } from 'node:path'

/**
 * Floors and areas as a lint rule (issue 38): a package's source folders are stacked in floors, and a
 * file may import only from its own floor or the floors below it; the folders of one floor that are
 * menu areas (web pages/<area>, server modules/<area>) import no other area, except an area it is
 * declared to build on. Only static imports and re-exports count: a lower floor may name what it
 * loads on demand with import() (the route table loads the pages and the list kit that way).
 *
 * Options: { root, floors: string[][], areaFolders?: string[], buildsOn?: Record<string, string[]> }
 *   root         the source folder (absolute)
 *   floors       lowest first; each a list of top-level folders (or files, named without extension)
 *   areaFolders  top-level folders whose subfolders are areas ('pages' → 'pages/iot', 'pages/ota')
 *   buildsOn     an area → the areas it may import ('pages/ota': ['pages/iot'])
 */
export default {
  rules: {
    floors: {
      meta: {
        type: 'problem',
        docs: { description: 'Lower floors never import upper ones; areas never import each other' },
        schema: [{ type: 'object', additionalProperties: true }],
        messages: {
          up: '{{from}} is on floor {{fromFloor}} and may not import {{to}} (floor {{toFloor}}): lower floors never import upper ones. Move the shared code down, or have the caller hand it in (eslint.config.js lists the floors).',
          across: '{{from}} may not import {{to}}: one area does not import another. Move the shared code to a floor below, or declare in eslint.config.js that {{from}} builds on {{to}}.',
          unplaced: '{{place}} is on no floor: add it to the floors in eslint.config.js.',
        },
      },
      create(context) {
        const { root, floors, areaFolders = [], buildsOn = {} } = context.options[0] ?? {}
        const file = context.filename
        const within = relative(root, file)
        if (within.startsWith('..') || /\.test\.[cm]?[jt]sx?$/.test(file)) return {}

        const placeOf = (path) => {
          const parts = relative(root, path).split(sep)
          const top = parts[0].replace(/\.[cm]?[jt]sx?$/, '')
          return parts.length > 2 && areaFolders.includes(top) ? { top, area: `${top}/${parts[1]}` } : { top, area: null }
        }
        const floorOf = (top) => floors.findIndex((floor) => floor.includes(top))
        const here = placeOf(file)
        const hereFloor = floorOf(here.top)

        const check = (node, source) => {
          if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return
          const target = resolve(dirname(file), source.value)
          if (relative(root, target).startsWith('..')) return
          const there = placeOf(target)
          const thereFloor = floorOf(there.top)
          if (hereFloor < 0) return context.report({ node, messageId: 'unplaced', data: { place: here.top } })
          if (thereFloor < 0) return context.report({ node, messageId: 'unplaced', data: { place: there.top } })
          if (thereFloor > hereFloor) {
            return context.report({ node, messageId: 'up', data: { from: here.area ?? here.top, fromFloor: hereFloor + 1, to: there.area ?? there.top, toFloor: thereFloor + 1 } })
          }
          if (here.area && there.area && here.area !== there.area && !(buildsOn[here.area] ?? []).includes(there.area)) {
            context.report({ node, messageId: 'across', data: { from: here.area, to: there.area } })
          }
        }
        return {
          ImportDeclaration: (node) => check(node, node.source),
          ExportNamedDeclaration: (node) => check(node, node.source),
          ExportAllDeclaration: (node) => check(node, node.source),
        }
      },
    },
  },
}
