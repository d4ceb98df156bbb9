import { defineConfig } from 'vite'

// The demo app (`npm run demo`, `npm run build:demo`). It imports the library from ../src.
export default defineConfig({
  root: 'demo',
  server: { port: 5173, strictPort: false },
  worker: { format: 'es' },
  build: { outDir: '../dist/demo', emptyOutDir: true },
})
