import { defineConfig } from 'vite'

// The demo app (`npm run demo`, `npm run build:demo`). It imports the library from ../src.
// Paths are relative to the project root, where npm scripts and vitest run.
export default defineConfig({
  root: 'demo',
  server: { host: 'localhost', port: 5173, strictPort: false },
  worker: { format: 'es' },
  build: { outDir: '../dist/demo', emptyOutDir: true },
})
