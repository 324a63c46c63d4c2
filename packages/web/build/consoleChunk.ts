import { build, type Plugin, type UserConfig } from 'vite'
import type { OutputBundle, OutputChunk } from 'rolldown'

/** Set while the console chunk's plan is being made, so the inner build does not plan again. */
const PLANNING = 'VELO_PLANNING_CONSOLE_CHUNK'

/**
 * The code every signed-in page needs, as one chunk: the console's entry, the shell and the list kit,
 * and every chunk they import statically (antd's core, the router, TanStack Query, the layout). Left
 * to the automatic split, Rolldown cut that code into ~50 files, by which dynamic imports share each
 * module: a request each on the way to a list's first row.
 *
 * Which modules those are is only known after tree-shaking and splitting (a module's static imports
 * reach, through @velo/shared's index, code no page loads up front), so the plan comes from a first
 * build in memory: its automatic chunks for these entries and their static imports, all the way
 * down. The second build puts exactly those modules in one chunk. Every module of the set was loaded
 * with the console, the shell or the list kit, and those three load together on the way to any page,
 * so no module runs earlier than a page would have run it, and the set needs no other chunk but the
 * entry's.
 */
export function consoleChunk(entries: RegExp): { plugin: Plugin; test: (id: string) => boolean } {
  const members = new Set<string>()
  const plugin: Plugin = {
    name: 'velo-console-chunk',
    apply: 'build',
    async config(config: UserConfig, { command }) {
      if (command !== 'build' || process.env[PLANNING]) return
      process.env[PLANNING] = '1'
      try {
        // The same configuration, in memory, without the plugins that write files (precompress), and
        // split automatically but for the entry's group: a group of ours (the icons) would otherwise
        // bring all its modules into the plan when the console needs a few of them.
        const plugins = (config.plugins ?? []).flat().filter((p) => !(p && typeof p === 'object' && 'name' in p && p.name === 'velo-precompress'))
        const rolldownOptions = config.build?.rolldownOptions ?? {}
        const output0 = Array.isArray(rolldownOptions.output) ? rolldownOptions.output[0] : rolldownOptions.output
        const splitting = output0?.codeSplitting
        const groups = typeof splitting === 'object' ? (splitting.groups ?? []).filter((g) => g.tags) : []
        const output = await build({
          ...config,
          plugins,
          configFile: false,
          logLevel: 'silent',
          build: {
            ...config.build,
            write: false,
            sourcemap: false,
            rolldownOptions: { ...rolldownOptions, output: { ...output0, codeSplitting: { ...(typeof splitting === 'object' ? splitting : {}), groups } } },
          },
        })
        const bundles = (Array.isArray(output) ? output : [output]) as { output: OutputBundle[keyof OutputBundle][] }[]
        for (const bundle of bundles) for (const id of staticClosure(bundle.output, entries)) members.add(id)
      } finally {
        delete process.env[PLANNING]
      }
    },
  }
  return { plugin, test: (id: string) => members.has(id) }
}

function staticClosure(output: OutputBundle[keyof OutputBundle][], entries: RegExp): Set<string> {
  const chunks = new Map<string, OutputChunk>()
  for (const item of output) if (item.type === 'chunk') chunks.set(item.fileName, item)
  // A chunk holding one of the entries (the list kit is a common chunk: custom pages import it statically).
  const todo = [...chunks.values()].filter((c) => !c.isEntry && c.moduleIds.some((id) => entries.test(id)))
  const seen = new Set<OutputChunk>()
  const modules = new Set<string>()
  while (todo.length > 0) {
    const chunk = todo.pop()!
    if (seen.has(chunk) || chunk.isEntry) continue
    seen.add(chunk)
    for (const id of chunk.moduleIds) modules.add(id)
    for (const name of chunk.imports) {
      const next = chunks.get(name)
      if (next) todo.push(next)
    }
  }
  return modules
}
