import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Plugin } from 'vite'
import type { AbstractNode, IconDefinition } from '@ant-design/icons-svg/lib/types'
import { MENU_ICONS } from '../src/lib/menuIconNames'

const ID = 'virtual:velo-menu-icons'
const RESOLVED = `\0${ID}`
/** Where the dev server answers with the sprite; '/@' paths are the dev server's own, never a page's or a public file's. */
const DEV_PATH = '@velo/menu-icons.svg'

// The package's CommonJS build: its ES build is .js files in a package that does not say "type": "module",
// which Node would not load as modules.
const require = createRequire(import.meta.url)
const { renderIconDefinitionToSVGElement } = require('@ant-design/icons-svg/lib/helpers') as typeof import('@ant-design/icons-svg/lib/helpers')

/** The sprite: a <symbol> per menu icon, its id the menu's name for it, drawn from antd's own definitions. */
export function menuIconSvg(): string {
  const symbols = Object.entries(MENU_ICONS).map(([name, definitionName]) => {
    const definition = (require(`@ant-design/icons-svg/lib/asn/${definitionName}`) as { default: IconDefinition }).default
    // Two-tone icons are functions of their colours; a symbol takes the colour of the <use> (currentColor) and has one.
    if (typeof definition.icon === 'function') throw new Error(`menu icon ${name}: ${definitionName} is two-tone; a menu icon is drawn in one colour`)
    const { attrs, children } = definition.icon
    // Each keeps its own viewBox: most are '64 64 896 896', a few (safety, shopping-cart) '0 0 1024 1024'.
    const symbol: AbstractNode = { tag: 'symbol', attrs: { id: name, viewBox: attrs.viewBox ?? '64 64 896 896' }, children }
    return renderIconDefinitionToSVGElement({ ...definition, icon: symbol })
  })
  return `<svg xmlns="http://www.w3.org/2000/svg">${symbols.join('')}</svg>\n`
}

/**
 * `virtual:velo-menu-icons`: the URL of one SVG file with every menu icon (src/lib/menuIconNames.ts), which
 * src/lib/menuIcons.tsx draws with <use href="<url>#<name>">. The sidebar's ~60 icons as components were
 * ~16 KB of the console's gzipped JavaScript; as a sprite they are a file the browser caches apart from
 * the code (hashed, so immutable) and that no script has to run.
 *
 * The build emits it as an asset (assets/menu-icons-<hash>.svg, compressed with the rest by precompress.ts);
 * the dev server, and Vitest's, answer it at /@velo/menu-icons.svg. The list is imported with this file, so
 * it is part of the Vite configuration: the dev server restarts when it changes.
 */
export function menuIconSprite(): Plugin {
  let build = false
  let devUrl = `/${DEV_PATH}`
  let svg: string | undefined
  const sprite = () => (svg ??= menuIconSvg())
  return {
    name: 'velo-menu-icon-sprite',
    configResolved(config) {
      build = config.command === 'build'
      devUrl = `${config.base}${DEV_PATH}`
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== devUrl) return next()
        res.setHeader('Content-Type', 'image/svg+xml')
        // The URL carries the content's hash, as the build's name does. With no-cache Chromium asks again
        // for every <use> that refers to it, ~30 requests for one sidebar.
        res.setHeader('Cache-Control', 'max-age=31536000, immutable')
        res.end(sprite())
      })
    },
    resolveId: (source) => (source === ID ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined
      if (!build) {
        const version = createHash('sha256').update(sprite()).digest('hex').slice(0, 8)
        return `export default ${JSON.stringify(`${devUrl}?v=${version}`)}`
      }
      const ref = this.emitFile({ type: 'asset', name: 'menu-icons.svg', source: sprite() })
      return `export default import.meta.ROLLUP_FILE_URL_${ref}`
    },
  }
}
