import type { Plugin } from 'vite'

/** Chrome's explicit compile hint: a file that opens with it has all its functions compiled as it streams in. */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad'

/**
 * Marks the named chunks with the compile hint. The console chunk (antd, the router, the shell, the list
 * kit) is fetched while the user types the password, and most of it runs in the first render after
 * Enter. V8 otherwise compiles each function on the main thread when it is first called, in that
 * render; with the hint it compiles them on a background thread while the file arrives, before Enter.
 * The entry chunk has none: the sign-in page runs a small part of it, and its time is the budget.
 *
 * The hint must open the file, so it goes in after Vite's own edits (its preload map is the first line),
 * and the source map takes one empty line more.
 */
export function compileHints(chunkNames: readonly string[]): Plugin {
  return {
    name: 'velo-compile-hints',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const file of Object.values(bundle)) {
          if (file.type !== 'chunk' || !chunkNames.includes(file.name)) continue
          file.code = `${COMPILE_HINT}\n${file.code}`
          if (file.map) file.map.mappings = `;${file.map.mappings}`
          // Rolldown has already put the map in the bundle as a file of its own.
          const mapFile = bundle[`${file.fileName}.map`]
          if (mapFile?.type === 'asset') {
            const map = JSON.parse(String(mapFile.source)) as { mappings: string }
            mapFile.source = JSON.stringify({ ...map, mappings: `;${map.mappings}` })
          }
        }
      },
    },
  }
}
