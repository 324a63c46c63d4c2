import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import { precompress } from './build/precompress'
import { consoleChunk } from './build/consoleChunk'
import { entityAreas } from './build/entityAreas'
import { antdEntries } from './build/antdEntries'
import { menuIconSprite } from './build/menuIconSprite'
import { antdStaticStyles } from './build/antdStaticStyles'
import { compileHints } from './build/compileHints'

const consoleSet = consoleChunk(/[\\/]src[\\/](app[\\/]console\.ts|layout[\\/]Shell\.tsx|crud[\\/]EntityListPage\.tsx)$/)

// The dev server proxies the API to a locally running server (npm run dev -w packages/server).
const apiTarget = process.env.VITE_API_TARGET ?? 'http://localhost:8080'

export default defineConfig({
  plugins: [react(), antdEntries(), entityAreas(), menuIconSprite(), antdStaticStyles(), compileHints(['console']), precompress(), consoleSet.plugin],
  server: {
    proxy: { '/api': { target: apiTarget, changeOrigin: true } },
  },
  build: {
    // antd alone is larger than the default warning limit; the budget we hold is the sign-in page's
    // (e2e/bundle.spec.ts: at most 120 KB of gzipped JavaScript in at most 6 requests), not each chunk's.
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      // EntityListPage is imported lazily by the page registry and the related lists (to stay out of
      // the shell's chunk and out of an import cycle) and statically by the custom pages that wrap it.
      // Those pages are lazy chunks themselves, so it gets a chunk of its own either way (the build
      // lists EntityListPage-*.js); the warning that the dynamic import "will not move it" is moot.
      checks: { ineffectiveDynamicImport: false },
      output: {
        // The areas' texts are each a texts.<language>.ts in their folder (src/routes/pageTexts.ts): their chunks
        // are named by folder (texts-iot.en_US-….js), for bundle reports that say whose they are.
        chunkFileNames: (chunk) => {
          const texts = /[\\/]src[\\/](?:pages[\\/])?(.+)[\\/]texts\.(\w+)\.ts$/.exec(chunk.facadeModuleId ?? '')
          return texts ? `assets/texts-${texts[1]!.replace(/[\\/]/g, '-')}.${texts[2]}-[hash].js` : 'assets/[name]-[hash].js'
        },
        codeSplitting: {
          // Everything the entry imports statically ('$initial': React, the light sign-in kit under
          // layout/auth, the few app modules it shares with the console, the bundler's runtime) goes
          // into the entry chunk, so the sign-in page is the HTML, one script and one stylesheet.
          // Without this group Rolldown cuts that set into a dozen small common chunks, one request
          // each. Everything else (the console, app/console.ts, with antd, the router, the layout and
          // each page) is left to the dynamic imports, so a page's first visit adds its own chunk.
          //
          // The console (app/console.ts), the shell and the list kit, with every module they need, are
          // one chunk: the automatic split cut them into ~50 files on the way to a list's first row
          // (build/consoleChunk.ts says how the set is found). The icons several pages share are one more:
          // left to the automatic split they came as a dozen files of half a kilobyte each. An icon one
          // page alone uses stays in that page's chunk (minShareCount), so System › Users does not
          // download the image viewer's or the rich-text editor's icons with its one key icon.
          groups: [
            { name: 'boot', tags: ['$initial'], priority: 3 },
            { name: 'console', test: consoleSet.test, priority: 2 },
            { name: 'icons', test: /@ant-design[\\/]icons(-svg)?[\\/]/, priority: 1, minShareCount: 2 },
          ],
        },
      },
    },
  },
})
