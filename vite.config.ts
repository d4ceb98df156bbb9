import { defineConfig } from 'vite'

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
})
