// `npm run bench:node`: the quick Node variant on fake-indexeddb (bench/node.ts), loaded through
// Vite's module runner so it shares the TypeScript harness and peers with the browser benchmarks.
// Prints the table; exits non-zero when a target is missed. Writes nothing.
import { fileURLToPath } from 'node:url'
import { runnerImport } from 'vite'
import { markdownTable } from './bench-report.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const { module } = await runnerImport('/bench/node.ts', { configFile: false, root: repo, logLevel: 'warn' })
const rows = await module.runNodeBench()
console.log(`Node ${process.version}, fake-indexeddb\n\n${markdownTable(rows)}\n`)
const missed = rows.filter((row) => !row.pass)
if (missed.length) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => row.id).join(', ')}`)
  process.exitCode = 1
}
