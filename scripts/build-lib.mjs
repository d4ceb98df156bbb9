// Builds the library into dist/: an ESM bundle of src/index.ts (idb and comlink stay external),
// in chunks (idb-ttl.js, what it imports statically, and what a handle loads with `import()` once
// open: see src/handle/deferred.ts), each Web Worker it starts as a file of its own beside them, source maps of both (with their
// sources inlined: src/ is not published), and .d.ts files from tsc. The worker entry gets no
// .d.ts: nothing imports it, the browser loads it by URL (tsconfig.build.json leaves it out).
//
// A worker is loaded by the browser directly, with no bundler or import map in between, so it
// cannot import 'idb' or 'comlink' by bare name: its bundle includes what it needs. The entry keeps
// the literal `new Worker(new URL('./<name>.js', import.meta.url), …)` form so that an app's
// bundler (Vite, webpack, Parcel) still recognises and ships the worker.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import MagicString from 'magic-string'
import { build } from 'vite'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const outDir = path.join(root, 'dist')
const WORKER_URL = /new Worker\(\s*new URL\(\s*(['"])(\.{1,2}\/[^'"]+)\.ts\1\s*,\s*import\.meta\.url\s*\)/g

/** Swaps each worker URL for a placeholder Vite leaves alone, then writes the final URL back. */
function workerFiles(workers) {
  const placeholder = (i) => `__idbTtlWorker${i}__`
  return {
    name: 'idb-ttl:worker-files',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith('.ts') || !code.includes('new Worker(')) return null
      const out = new MagicString(code)
      for (const match of code.matchAll(WORKER_URL)) {
        const relative = match[2]
        workers.push({ entry: path.resolve(path.dirname(id), `${relative}.ts`), name: path.basename(relative) })
        out.overwrite(match.index, match.index + match[0].length, `new Worker(${placeholder(workers.length - 1)}`)
      }
      return out.hasChanged() ? { code: out.toString(), map: out.generateMap({ hires: true, source: id }) } : null
    },
    renderChunk(code) {
      const out = new MagicString(code)
      for (const match of code.matchAll(/__idbTtlWorker(\d+)__/g)) {
        const url = `new URL("./${workers[Number(match[1])].name}.js", import.meta.url)`
        out.overwrite(match.index, match.index + match[0].length, url)
      }
      return out.hasChanged() ? { code: out.toString(), map: out.generateMap({ hires: true }) } : null
    },
  }
}

const common = { configFile: false, root, publicDir: false, logLevel: 'info' }

const workers = []
await build({
  ...common,
  plugins: [workerFiles(workers)],
  build: {
    outDir,
    emptyOutDir: true,
    minify: false,
    sourcemap: true,
    lib: { entry: path.join(root, 'src/index.ts'), formats: ['es'], fileName: () => 'idb-ttl.js' },
    rolldownOptions: { external: ['idb', 'comlink'], output: { chunkFileNames: (chunk) => `idb-ttl-${chunk.isDynamicEntry ? 'deferred' : 'core'}-[hash].js` } },
  },
})
if (workers.length === 0) throw new Error('no `new Worker(new URL(...))` found in src: the worker would be missing')

for (const { entry, name } of workers) {
  await build({
    ...common,
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      sourcemap: true,
      lib: { entry, formats: ['es'], fileName: () => `${name}.js` },
    },
  })
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
console.log(`dist/idb-ttl.js, ${workers.map((w) => `dist/${w.name}.js`).join(', ')} and dist/index.d.ts written`)
