import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The dev server proxies the API to a locally running server (npm run dev -w packages/server).
const apiTarget = process.env.VITE_API_TARGET ?? 'http://localhost:8080'

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { '/api': { target: apiTarget, changeOrigin: true } },
  },
  build: {
    // antd alone is larger than the default warning limit; the budget we hold is the login page's
    // initial JS (checked by e2e/bundle-budget), not each chunk.
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // Split the framework away from our code so the chunks change rarely; everything else is
        // left to the lazy routes so the login page does not download the layout or heavy widgets.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
          ],
        },
      },
    },
  },
})
