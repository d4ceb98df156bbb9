// `npm run bench:node`: the quick Node variant on fake-indexeddb (bench/node.ts), loaded through
// Vite's module runner so it shares the TypeScript harness and peers with the browser benchmarks.
// Prints the table; exits non-zero when a target is missed. Writes nothing.
import { fileURLToPath } from 'node:url'
import { createServer } from 'vite'
import { markdownTable } from './bench-report.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
// A server kept open while the bench runs (not `runnerImport`, whose runner closes once the
// module is imported): the page entries load chunks with `import()` as they run.
const server = await createServer({ configFile: false, root: repo, logLevel: 'warn', appType: 'custom', server: { middlewareMode: true, hmr: false }, optimizeDeps: { noDiscovery: true, entries: [] } })
const module = await server.ssrLoadModule('/bench/node.ts')
const rows = await module.runNodeBench().finally(() => server.close())
console.log(`Node ${process.version}, fake-indexeddb\n\n${markdownTable(rows)}\n`)
const missed = rows.filter((row) => !row.pass)
if (missed.length) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => row.id).join(', ')}`)
  process.exitCode = 1
}
