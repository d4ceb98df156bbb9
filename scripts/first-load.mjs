// Issue #44's first load: an app built by Vite for production (code splitting on, no
// configuration), and of its chunks the entry and those it imports statically, each min+gzip: what
// a page loads before `openTtlDB` resolves and its first calls finish. The chunks it loads with
// `import()` (the background purge at the first idle callback, the schema code at an upgrade…) are
// listed apart, as `later`. Used by scripts/bench-size.mjs (the apps of test/consumer/app/, built
// against dist/) and by the consumer test (the same apps against the packed tarball).
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'

/**
 * Builds `entry` (a file of `root`) with Vite and weighs its first load. `alias` maps package names
 * to files (dist/ in the repository; none in an app that installed the package).
 * @returns {Promise<{ bytes: number, firstLoad: { file: string, code: string, gzipped: number }[], later: { file: string, code: string, gzipped: number }[] }>}
 */
export async function viteFirstLoad(root, entry, alias = {}) {
  const output = await build({
    root,
    configFile: false,
    logLevel: 'warn',
    resolve: { alias },
    build: { write: false, rolldownOptions: { input: path.resolve(root, entry) } },
  })
  const chunks = (Array.isArray(output) ? output[0] : output).output.filter((file) => file.type === 'chunk')
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
  const first = []
  const visit = (chunk) => {
    if (first.includes(chunk)) return
    first.push(chunk)
    for (const file of chunk.imports) visit(byName.get(file))
  }
  visit(chunks.find((chunk) => chunk.isEntry))
  const weigh = (chunk) => ({ file: chunk.fileName, code: chunk.code, gzipped: gzipSync(chunk.code).length })
  const firstLoad = first.map(weigh)
  return { bytes: firstLoad.reduce((sum, chunk) => sum + chunk.gzipped, 0), firstLoad, later: chunks.filter((chunk) => !first.includes(chunk)).map(weigh) }
}

/** The minimal apps of test/consumer/app/ (core.ts, full.ts) built against dist/: their first loads. */
export async function repoFirstLoads() {
  const repo = path.dirname(path.dirname(new URL(import.meta.url).pathname))
  const dist = (file) => path.join(repo, 'dist', file)
  const alias = [
    { find: /^idb-ttl\/core$/, replacement: dist('core.js') },
    { find: /^idb-ttl$/, replacement: dist('idb-ttl.js') },
  ]
  const app = path.join(repo, 'test/consumer/app')
  return { core: await viteFirstLoad(app, 'core.ts', alias), full: await viteFirstLoad(app, 'full.ts', alias) }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const loads = await repoFirstLoads()
  for (const [name, load] of Object.entries(loads)) {
    console.log(`${name}: first load ${load.bytes} B min+gzip`, load.firstLoad.map((c) => `${c.file} ${c.gzipped}`).join(', '))
    console.log(`  later: ${load.later.map((c) => `${c.file} ${c.gzipped}`).join(', ')}; all ${load.bytes + load.later.reduce((s, c) => s + c.gzipped, 0)}`)
  }
}
