/**
 * Issue #44's target for idb-ttl/workbox: a service worker with Workbox's CacheFirst and
 * TtlExpirationPlugin (weight/ttl-sw.js) is at most 6 kB (min+gzip) above the same worker with
 * workbox-expiration's ExpirationPlugin (weight/expiration-sw.js), each one file bundled by
 * esbuild as an app's build would (Workbox's production build). Here the plugin comes from src/;
 * `npm run size` weighs the same two workers with dist/workbox.js (.size-limit.js).
 */
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { expect, test } from 'vitest'

const KB = 1000

/** `worker` bundled, minified, gzipped at size-limit's level: its bytes. */
async function weight(worker: string): Promise<number> {
  const { outputFiles } = await build({
    entryPoints: [new URL(`weight/${worker}`, import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [{ name: 'idb-ttl-from-src', setup: (b) => b.onResolve({ filter: /^idb-ttl\/workbox$/ }, () => ({ path: new URL('../../src/workbox/index.ts', import.meta.url).pathname })) }],
    logLevel: 'error',
  })
  return gzipSync(outputFiles[0].contents, { level: 9 }).length
}

test('a service worker with CacheFirst and TtlExpirationPlugin is at most 6 kB (min+gzip) above the same worker with ExpirationPlugin', async () => {
  const [expiration, ttl] = await Promise.all([weight('expiration-sw.js'), weight('ttl-sw.js')])
  // Sanity: both are whole workers (Workbox's routing and strategies are about 3.4 kB).
  expect(expiration).toBeGreaterThan(4 * KB)
  expect(ttl - expiration).toBeLessThanOrEqual(6 * KB)
}, 30_000)
