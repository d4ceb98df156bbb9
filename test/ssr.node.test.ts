/**
 * Server-side rendering: importing the entry where there is no IndexedDB (Node, a server render)
 * must not throw, and what needs no database must work. The Node project installs fake-indexeddb
 * for every test file (test/setup-node.ts), so the import runs in a child `node` with no such
 * globals, through a Vite server's module runner (which compiles src/ and leaves idb and comlink
 * to Node, as a server bundle would). A server, not `runnerImport`, whose runner is closed once the
 * entry is imported: the refusals load their words with `import()` (rules/refusal.ts), as they do
 * in a server render.
 */
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { runNodeScript } from './node-child.js'

const root = fileURLToPath(new URL('..', import.meta.url))

const child = `
const before = typeof indexedDB
const { createServer } = await import('vite')
const server = await createServer({ configFile: false, logLevel: 'silent', appType: 'custom', server: { middlewareMode: true, hmr: false, ws: false }, optimizeDeps: { noDiscovery: true }, cacheDir: ${JSON.stringify(path.join(tmpdir(), 'idb-ttl-ssr-vite'))} })
const lib = await server.ssrLoadModule(${JSON.stringify(`${root}src/index.ts`)})
const out = { before, after: typeof indexedDB, exports: Object.keys(lib).sort() }
out.isExpired = lib.isExpired({ ttl: 60, _ts: 0 }, 3600, 61_000)
out.ttlUntil = lib.ttlUntil(90_000, 30_000)
try {
  await lib.openTtlDB('app', { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  out.open = 'opened'
} catch (error) {
  out.open = { name: error.name, code: error.code, message: error.message }
}
try {
  await lib.deleteTtlDB('app')
  out.delete = 'deleted'
} catch (error) {
  out.delete = { name: error.name, code: error.code, message: error.message }
}
await server.close()
console.log(JSON.stringify(out))
`

test('with no indexedDB global, the entry imports, the resolver works, and openTtlDB and deleteTtlDB reject with TtlError UNSUPPORTED saying what to install', async () => {
  const out = await runNodeScript(child, root)
  expect(out.before).toBe('undefined')
  expect(out.after).toBe('undefined')
  expect(out.exports).toEqual(expect.arrayContaining(['openTtlDB', 'deleteTtlDB', 'TtlError', 'isExpired', 'expiresAt', 'ttlUntil']))
  expect(out.isExpired).toBe(true)
  expect(out.ttlUntil).toBe(60)
  // A rejection, not a throw at import or a hang: a server render can catch it.
  for (const [call, error] of [['openTtlDB', out.open], ['deleteTtlDB', out.delete]]) {
    expect(error, String(call)).toEqual({ name: 'TtlError', code: 'UNSUPPORTED', message: expect.stringContaining(`${call}("app") needs IndexedDB`) })
    expect(error, String(call)).toMatchObject({ message: expect.stringContaining("install fake-indexeddb and import 'fake-indexeddb/auto'") })
  }
}, 90_000)
