import type { IncomingMessage, ServerResponse } from 'node:http'
import { defineConfig, type Plugin } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'
import { cosmosServer } from './demo/cosmos-server.js'

/**
 * The demo's API, the "network" its service worker (demo/sw.ts) refreshes from: GET
 * `…/api/quotes` answers a few quotes and a sequence number that grows with each request, so a
 * response the worker served from its store is told from a fresh one. The demo has no backend:
 * this lives in the dev server (`npm run demo`) and in `vite preview`; served as plain static
 * files, the route is missing and the worker passes the 404 on.
 */
function demoApi(): Plugin {
  let served = 0
  const quotes = [
    'Expired stays expired.',
    'Invisible at once, deleted later.',
    'Every write restarts the countdown.',
  ]
  const handle = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (req.method !== 'GET' || !path.endsWith('/api/quotes')) return next()
    served++
    res.setHeader('content-type', 'application/json')
    res.setHeader('cache-control', 'no-store')
    res.end(JSON.stringify({ n: served, servedAt: Date.now(), quotes }))
  }
  return {
    name: 'demo-api',
    configureServer: (server) => void server.middlewares.use(handle),
    configurePreviewServer: (server) => void server.middlewares.use(handle),
  }
}

// The demo app (`npm run demo`, `npm run build:demo`). It imports the library from ../src.
// Paths are relative to the project root, where npm scripts and vitest run. `base: './'` lets
// the built demo be served from any folder as plain static files. It goes to dist-demo/, never
// to dist/: dist/ is what the package publishes.
export default defineConfig({
  root: 'demo',
  base: './',
  server: { host: 'localhost', port: 5173, strictPort: false },
  worker: { format: 'es' },
  build: { outDir: '../dist-demo', emptyOutDir: true },
  plugins: [
    demoApi(),
    // The demo's Cosmos DB account for section 7 (embedded, or COSMOS_CONNECTION_STRING's).
    cosmosServer(),
    // An installable PWA: a web app manifest, and a service worker built from demo/sw.ts with the
    // precache manifest injected. demo/main.ts registers it (virtual:pwa-register).
    VitePWA({
      strategies: 'injectManifest',
      srcDir: '.',
      filename: 'sw.ts',
      injectRegister: false,
      registerType: 'autoUpdate',
      // Built as a classic script, which is how it is registered outside the dev server: the
      // library holds \`import.meta.url\` (its purge worker's URL), a syntax error in a classic
      // script of format 'es' (the plugin's default). Rollup rewrites it for 'iife'.
      injectManifest: { rollupFormat: 'iife' },
      manifest: {
        name: 'idb-ttl demo: see time to live happen',
        short_name: 'idb-ttl demo',
        description: 'Azure Cosmos DB time to live on IndexedDB, with a service worker that answers offline.',
        theme_color: '#2f6fde',
        background_color: '#ffffff',
        display: 'standalone',
        icons: [
          { src: 'icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      // `npm run demo` runs the worker too, as a module (the dev server serves it unbundled).
      devOptions: { enabled: true, type: 'module' },
    }),
  ],
})
