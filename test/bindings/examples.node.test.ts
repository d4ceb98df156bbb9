/**
 * The runnable examples (examples/react, examples/vue, examples/svelte) build with Vite, as their
 * READMEs say to run them, so that they cannot rot: each bundle holds its app, the binding it
 * imports, and the purge worker beside it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { afterAll, expect, test } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const outRoot = mkdtempSync(path.join(tmpdir(), 'idb-ttl-examples-'))
afterAll(() => rmSync(outRoot, { recursive: true, force: true }))

test.each(['react', 'vue', 'svelte'])('examples/%s builds', async (framework) => {
  const exampleRoot = path.join(root, 'examples', framework)
  const outDir = path.join(outRoot, framework)
  await build({
    root: exampleRoot,
    configFile: path.join(exampleRoot, 'vite.config.ts'),
    logLevel: 'silent',
    ...(process.env.VITE_CACHE_DIR && { cacheDir: `${process.env.VITE_CACHE_DIR}-examples-${framework}` }),
    build: { outDir, emptyOutDir: true, minify: false },
  })
  const assets = readdirSync(path.join(outDir, 'assets'))
  expect(assets.some((file) => file.startsWith('purge-worker'))).toBe(true)
  const app = assets.filter((file) => file.startsWith('index')).map((file) => readFileSync(path.join(outDir, 'assets', file), 'utf8')).join('\n')
  // The app's own text, the binding's call of db.live, and the database it opens.
  expect(app).toContain('Start a session (3 s)')
  expect(app).toContain('idb-ttl-examples')
  expect(app).toMatch(/\.live\(/)
  expect(readFileSync(path.join(outDir, 'index.html'), 'utf8')).toContain('<div id="app">')
}, 120_000)
