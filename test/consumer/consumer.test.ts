/**
 * The package as a user gets it: the tarball `npm pack` makes (prepack builds it: minified, a
 * .d.ts per entry, no source maps; the docs beside them), installed into a scratch app outside the repo
 * with `@azure/cosmos` beside it, as a user of `idb-ttl/cosmos` installs it, then type-checked (a
 * typed file must pass, and so must every ```ts block of README.md and docs/, each a module of its
 * own; a file with a wrong store name and a string ttl must fail, at those lines), then bundled as
 * each bundler's user would and served: `vite build`, the Vite dev server, webpack 5 and esbuild.
 * In Debian's Chromium, each page's purge deletes an expired item: with the worker the bundler
 * shipped (Vite, webpack), or, where it ships none (esbuild), on the page after one console
 * warning that names the missing URL, and with the worker once dist/purge-worker.js is copied
 * beside the bundle. A Node program of the app mirrors a container of the in-process Cosmos DB
 * server through the installed `idb-ttl/cosmos`.
 */
import { readdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { createHttpServer } from '@vercel/cosmosdb-server'
import { chromium, type Browser } from 'playwright-core'
import { createServer, preview, type PreviewServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'
import type { ConsumerApi } from './app/api.js'
import * as scratch from './scratch.mjs'

declare const consumer: ConsumerApi
const POLL = { timeout: 30_000, interval: 100 }

let base: string | undefined
let packed: scratch.Packed
let app: string
const servers: (PreviewServer | ViteDevServer)[] = []
let browser: Browser | undefined

beforeAll(async () => {
  base = await scratch.scratchDir()
  packed = await scratch.pack(base)
  app = await scratch.scratchApp(base, packed.tarball)
})

afterAll(async () => {
  await browser?.close()
  for (const server of servers) await server.close()
  if (base) await scratch.remove(base)
})

/** The chunk of what the full entries share beyond the core, `dist/idb-ttl-shared.js`. */
const SHARED = /^dist\/idb-ttl-shared\.js$/
/** The chunk of what `idb-ttl/core` is made of, which every entry but workbox and keyval imports: `dist/idb-ttl-core.js`. */
const CORE = /^dist\/idb-ttl-core\.js$/
/** The chunk that starts the purge worker by its URL, which only the page entries load, with `import()`: `dist/idb-ttl-page.js`. */
const PAGE = /^dist\/idb-ttl-page\.js$/
/** The background purge (scheduler, leader, the page's own purger): the service worker's entry imports it, the page entries load it with `import()`. */
const PURGE = /^dist\/idb-ttl-purge\.js$/
/** The schema work of an open that creates or upgrades the database: the service worker's entry imports it, the page entries load it with `import()` when an open needs it. */
const UPGRADE = /^dist\/idb-ttl-upgrade\.js$/
/** Storage Buckets and `db.storage()`: the service worker's entry imports it, the page entries load it with `import()` when an app first uses one (or deletes a database). */
const STORAGE = /^dist\/idb-ttl-storage\.js$/
/** The full handle's watch of its storage (`onLost`, `bucket.expiresAfterItems`): the service worker's entry imports it, `idb-ttl` loads it with `import()` when an open asks for one, `idb-ttl/core` never. */
const WATCH = /^dist\/idb-ttl-watch\.js$/
/** The steps of quota relief: the service worker's entry imports them, the page entries load them with `import()` at the first write refused for lack of space. */
const RELIEF = /^dist\/idb-ttl-relief\.js$/
/** What runs `db.transaction`: the service worker's entry imports it, `idb-ttl` loads it with `import()` at a handle's first transaction. */
const TRANSACTION = /^dist\/idb-ttl-transaction\.js$/
/** The writes of stores kept in generations (`evictOnQuota`): the service worker's entry imports them, `idb-ttl` loads them with `import()` at the first such write. */
const GENERATIONS = /^dist\/idb-ttl-generations\.js$/
/** The reading of values kept in generations: `idb-ttl` loads it with `import()` with their writes, at a handle's first read or write of such a store; the purge, its round of eviction and those writes import it. */
const VALUES = /^dist\/idb-ttl-values\.js$/
/** The words of the refusals an open's checks make: the service worker's entry imports them, the page entries load them with `import()` at the first refusal. */
const TEXTS = /^dist\/idb-ttl-texts\.js$/
/** The words only idb-ttl/core's refusals name (what only idb-ttl has), with the texts: idb-ttl/core loads them with `import()` at the first refusal. */
const FULL_ONLY = /^dist\/idb-ttl-full-only\.js$/
/** The words only idb-ttl's refusals name (transactions, purgeDuring, onLost), with the texts: the service worker's entry and the transactions' chunk import them, idb-ttl loads them with `import()` at the first refusal. */
const FULL_TEXTS = /^dist\/idb-ttl-full-texts\.js$/
/** The resolver the entries export (checkDefaultTtl, itemTtl, expiresAt, isExpired, ttlUntil), with its words: imported by the entries alone, so that an app that never calls it loads none of it. */
const RESOLVER = /^dist\/idb-ttl-resolver\.js$/
/** The checks of the options beyond a store's key and default, and of the purge's: the service worker's entry imports them, the page entries load them with `import()` at an open given one. */
const OPTIONS = /^dist\/idb-ttl-options\.js$/
/** The refusal of an unknown option with the closest known name: the full entries' chunk imports it (`db.live`), and the texts and Storage Buckets' chunks. */
const HINT = /^dist\/idb-ttl-hint\.js$/
/** Quota relief's round of eviction: the service worker's entry imports it, `idb-ttl` loads it with `import()` with the steps of relief, which it imports. */
const EVICT = /^dist\/idb-ttl-evict\.js$/
/** The stale reads: the service worker's entry imports them, `idb-ttl` loads them with `import()` at a handle's first `getStale` or `getAllStale`. */
const STALE = /^dist\/idb-ttl-stale\.js$/
/** The touches of `touchOnRead` stores: the service worker's entry imports them, `idb-ttl` loads them with `import()` at an open that declares one. */
const TOUCH = /^dist\/idb-ttl-touch\.js$/
/** What runs a subscribed live query (its subscribers, readings and hearing of changes): the service worker's entry imports it, `idb-ttl` loads it with `import()` at a handle's first subscription. */
const FOLLOW = /^dist\/idb-ttl-follow\.js$/
/** What the handle's less common calls run: the service worker's entry imports it, the page entries load it with `import()` at the first of them; what runs transactions and the writes of stores kept in generations import it. */
const CALLS = /^dist\/idb-ttl-calls\.js$/
/** What changes a store's settings (`setDefaultTtl`, a changed declaration): the chunks of the less common calls and of the schema work import it. */
const SETTINGS = /^dist\/idb-ttl-settings\.js$/
/** The expiry listeners and the publishing of expiry events: `idb-ttl`'s first load (the shared chunk) imports it; for `idb-ttl/core`, the chunks of the less common calls and of the purge. */
const EVENTS = /^dist\/idb-ttl-events\.js$/
/** The notices that tell live queries of a handle's changes: `idb-ttl`'s first load (the shared chunk) imports it; `idb-ttl/core` loads it with `import()` at a handle's first change. */
const NOTICES = /^dist\/idb-ttl-notices\.js$/
/** What holds Web Locks (`platform/lock.ts`): `idb-ttl`'s first load imports it; `idb-ttl/core` loads it with `import()` as an open starts (the settings lock). */
const LOCKS = /^dist\/idb-ttl-locks\.js$/
/** The check of an index's name, the dead keys and the count of an index's live entries: `idb-ttl`'s first load (the shared chunk) imports it; the chunks of the less common calls, of transactions and of live queries too. */
const INDEX = /^dist\/idb-ttl-index\.js$/
/** The bundler's helper for the namespaces of the chunks loaded with `import()`. */
const RUNTIME = /^dist\/idb-ttl-rolldown-runtime\.js$/
/** The write observer of mirrored stores (transaction/mirror-queue.ts), loaded by an open that declares one (issue #44); idb-ttl/cosmos imports it. */
const MIRROR = /^dist\/idb-ttl-mirror\.js$/
/** purgeDuring's checks and refusals (background/during-work.ts), loaded at its first call (issue #44). */
const DURING = /^dist\/idb-ttl-during\.js$/
/** issue #33: the bytes (min+gzip) of an app that uses only `idb-ttl/core`, .size-limit.js's limit for it. The target is 10 kB. */
const { CORE_APP_BUDGET, FIRST_LOAD_BUDGET } = scratch

test('the tarball holds the ten entries (idb-ttl, idb-ttl/core, idb-ttl/service-worker, idb-ttl/cosmos, idb-ttl/tanstack, idb-ttl/workbox, idb-ttl/keyval, idb-ttl/react, idb-ttl/vue, idb-ttl/svelte), the chunks they share (the core, the rest of the full entry, the background purge, what starts the purge worker, the schema work of an upgrade, the checks of options beyond a store\'s key and default, Storage Buckets, the watch of onLost, quota relief, the words of the refusals (those both entries share, and those of each entry alone), the resolver the entries export, the unknown-option hint, its round of eviction, the stale reads, the touches of touchOnRead stores, the write observer of mirrored stores, purgeDuring\'s checks, the expiry listeners, the notices of changes to live queries, what holds Web Locks, the index reads, what follows a live query, what the less common calls run, what changes a store\'s settings, what runs transactions, the writes of stores kept in generations and the reading of their values, the bundler\'s helper), the worker, one .d.ts per entry and the framework bindings\' shared types, the docs on using the library (not the four about the repository), README, LICENSE and package.json, nothing else; under 520 kB unpacked', async () => {
  const allowed = /^(dist\/(idb-ttl|core|service-worker|cosmos|tanstack|workbox|keyval|react|vue|svelte|purge-worker|idb-ttl-(shared|core|page|purge|upgrade|options|storage|watch|relief|evict|stale|touch|follow|calls|settings|texts|full-only|full-texts|resolver|hint|transaction|generations|values|mirror|during|events|notices|locks|index|rolldown-runtime))\.js|dist\/(index|core|service-worker|cosmos|tanstack|workbox|keyval|react|vue|svelte|bindings)\.d\.ts|docs\/[\w-]+\.md|README\.md|LICENSE|package\.json)$/
  expect(packed.files.filter((file) => !allowed.test(file))).toEqual([])
  expect(packed.files).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'package.json',
      'dist/idb-ttl.js',
      'dist/core.js',
      'dist/core.d.ts',
      'dist/cosmos.js',
      'dist/tanstack.js',
      'dist/workbox.js',
      'dist/keyval.js',
      'dist/purge-worker.js',
      'dist/service-worker.js',
      'dist/service-worker.d.ts',
      'dist/index.d.ts',
      'dist/cosmos.d.ts',
      'dist/tanstack.d.ts',
      'dist/workbox.d.ts',
      'dist/keyval.d.ts',
      'dist/react.js',
      'dist/react.d.ts',
      'dist/vue.js',
      'dist/vue.d.ts',
      'dist/svelte.js',
      'dist/svelte.d.ts',
      'dist/bindings.d.ts',
      ...(await scratch.docsFiles()).filter((file) => !scratch.repositoryOnlyDocs().includes(file)),
    ]),
  )
  expect(scratch.repositoryOnlyDocs()).toEqual(['docs/architecture.md', 'docs/benchmarks.md', 'docs/contributing.md', 'docs/demo.md'])
  expect(packed.files.filter((file) => scratch.repositoryOnlyDocs().includes(file))).toEqual([])
  expect(packed.files.filter((file) => SHARED.test(file))).toHaveLength(1)
  expect(packed.files.filter((file) => CORE.test(file))).toHaveLength(1)
  for (const chunk of [PAGE, PURGE, UPGRADE, OPTIONS, STORAGE, WATCH, RELIEF, TEXTS, HINT, CALLS, SETTINGS, EVENTS, NOTICES, INDEX, RUNTIME]) expect(packed.files.filter((file) => chunk.test(file))).toHaveLength(1)
  expect(packed.files.filter((file) => file.endsWith('.d.ts'))).toEqual(['dist/bindings.d.ts', 'dist/core.d.ts', 'dist/cosmos.d.ts', 'dist/index.d.ts', 'dist/keyval.d.ts', 'dist/react.d.ts', 'dist/service-worker.d.ts', 'dist/svelte.d.ts', 'dist/tanstack.d.ts', 'dist/vue.d.ts', 'dist/workbox.d.ts'])
  // 347 kB with five entries and fifteen pages of docs (the four left out are 73 kB, benchmarks.md 44 kB of them); #35's budget
  // was 400 kB. 414 kB with seven entries (keyval) and sixteen pages (keyval.md; cosmos.md grew
  // with #43): 188 kB of docs, about 160 kB of JS, 53 kB of types.
  // 472 kB with ten entries (the framework bindings), the chunks the page entries load later (#44)
  // and three pages more (frameworks.md, stale.md, storage.md); the budget 520 kB.
  expect(packed.unpackedSize).toBeLessThan(520_000)
  const { copied } = await scratch.installed(app)
  expect(copied).toBe(true)
})

/** A heading's anchor as GitHub and npm make it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')
const anchorsOf = (markdown: string) => new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])))

test('every link of the packed README and docs works: to a heading of its own, to a file (and heading) the package ships, or to another site; the package names no repository it does not have', async () => {
  const { dir } = await scratch.installed(app)
  const manifest = JSON.parse(await scratch.readText(dir, 'package.json')) as Record<string, unknown>
  // No public repository yet: the npm page links the shipped docs, never an invented address.
  expect(Object.keys(manifest).filter((field) => ['repository', 'homepage', 'bugs'].includes(field))).toEqual([])
  const readme = await scratch.readText(dir, 'README.md')
  expect([...readme.matchAll(/\]\((docs\/[^)\s]+)\)/g)].length, 'README links the shipped docs').toBeGreaterThan(10)
  const broken: string[] = []
  for (const page of packed.files.filter((file) => file.endsWith('.md'))) {
    const text = await scratch.readText(dir, page)
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [target, hash] = link.split('#') as [string, string | undefined]
      if (/^https:\/\//.test(target)) continue
      const file = target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target))
      if (!packed.files.includes(file)) broken.push(`${page}: ${link}`)
      else if (hash !== undefined && !anchorsOf(await scratch.readText(dir, file)).has(hash)) broken.push(`${page}: ${link}`)
    }
  }
  expect(broken).toEqual([])
})

test('the entries import only the chunks, idb and comlink; idb-ttl/core and idb-ttl/tanstack none of the full entries\' chunk, nor idb; only the page entries (idb-ttl, idb-ttl/core) load the background purge, the schema work of an upgrade, the checks of options beyond a store\'s key and default, Storage Buckets, quota relief, the words of the refusals at open, what the less common calls run and (idb-ttl alone, its relief with the round of eviction) the watch of onLost, the stale reads, the touches of touchOnRead stores, what follows a live query, what runs transactions and the writes and values of stores kept in generations, with import() (issue #44: out of their first load), and only they the chunk that starts the purge worker, so that a service worker\'s bundler never ships it; no other import() (service workers forbid it), idb-ttl/cosmos not @azure/cosmos (the app passes its own Container), idb-ttl/tanstack nothing of TanStack, idb-ttl/workbox nothing (self-contained: its own store over raw IndexedDB), nothing of Workbox; idb-ttl/react, /vue, /svelte their framework only', async () => {
  const { dir } = await scratch.installed(app)
  const [shared, coreChunk, pageChunk, purgeChunk, upgradeChunk, storageChunk, watchChunk, reliefChunk, evictChunk, staleChunk, touchChunk, followChunk, transactionChunk, generationsChunk, textsChunk, hintChunk, runtimeChunk, optionsChunk, callsChunk, valuesChunk, settingsChunk, fullOnlyChunk, fullTextsChunk, resolverChunk, mirrorChunk, duringChunk, eventsChunk, noticesChunk, indexChunk, locksChunk] = [SHARED, CORE, PAGE, PURGE, UPGRADE, STORAGE, WATCH, RELIEF, EVICT, STALE, TOUCH, FOLLOW, TRANSACTION, GENERATIONS, TEXTS, HINT, RUNTIME, OPTIONS, CALLS, VALUES, SETTINGS, FULL_ONLY, FULL_TEXTS, RESOLVER, MIRROR, DURING, EVENTS, NOTICES, INDEX, LOCKS].map((chunk) => packed.files.find((file) => chunk.test(file))!)
  const statics = async (file: string) => [...(await scratch.readText(dir, file)).matchAll(/(?:from|import)\s*"([^"]+)"/g)].map((m) => m[1]).sort()
  const dynamics = async (file: string) => [...new Set([...(await scratch.readText(dir, file)).matchAll(/\bimport\s*\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]))].sort()
  const [chunk, core, page, purge, upgrade, storage, watch, relief, evict, stale, touch, follow, transaction, generations, texts, hint, runtime, options, calls, values, settings, fullOnly, fullTexts, resolver, mirror, during, events, notices, index, locks] = [shared, coreChunk, pageChunk, purgeChunk, upgradeChunk, storageChunk, watchChunk, reliefChunk, evictChunk, staleChunk, touchChunk, followChunk, transactionChunk, generationsChunk, textsChunk, hintChunk, runtimeChunk, optionsChunk, callsChunk, valuesChunk, settingsChunk, fullOnlyChunk, fullTextsChunk, resolverChunk, mirrorChunk, duringChunk, eventsChunk, noticesChunk, indexChunk, locksChunk].map((file) => `./${file.slice('dist/'.length)}`)
  // The resolver's chunk for its re-export alone: an app that never calls it drops it.
  expect(await statics('dist/idb-ttl.js')).toEqual([core, chunk, resolver].sort())
  expect(await dynamics('dist/idb-ttl.js')).toEqual([page, purge, upgrade, options, storage, watch, evict, stale, touch, follow, calls, transaction, generations, values, fullTexts, mirror, during].sort())
  expect(await statics('dist/core.js')).toEqual([core, resolver].sort())
  expect(await dynamics('dist/core.js')).toEqual([page, upgrade, options, storage, relief, calls, fullOnly, notices, locks].sort())
  // idb-ttl/core carries no idb: only the full entries' chunk imports it (db.raw and upgrade's views).
  expect(await statics(coreChunk)).toEqual([])
  expect(await statics(pageChunk)).toEqual(['comlink', core, purge, runtime].sort())
  // The purge publishes expiry events (idb-ttl/core's first load carries no listeners).
  expect(await statics(purgeChunk)).toEqual([core, events, locks, runtime, values].sort())
  // What changes a store's settings, which the write of a changed declaration shares with setDefaultTtl.
  expect(await statics(upgradeChunk)).toEqual([core, runtime, settings].sort())
  // With the names each options object takes (rules/known-options.ts), which the checks refuse an unknown one by (the closest-name hint is the texts').
  expect(await statics(optionsChunk)).toEqual([core, runtime].sort())
  expect(await statics(storageChunk)).toEqual([core, hint, runtime].sort())
  expect(await statics(watchChunk)).toEqual([core, runtime, storage].sort())
  expect(await statics(reliefChunk)).toEqual([core, runtime].sort())
  expect(await statics(evictChunk)).toEqual([core, events, purge, relief, runtime, values].sort())
  // A store's grace (rules/grace.ts), which the purge judges by too: in the background's chunk, which the full entry loads at idle anyway.
  expect(await statics(staleChunk)).toEqual([core, purge, runtime].sort())
  expect(await statics(touchChunk)).toEqual([core, locks, runtime].sort())
  // The check of an index's name (db.live's `index`), with idb-ttl's first load.
  expect(await statics(followChunk)).toEqual([core, index, locks, notices, runtime].sort())
    // When a store's first live item dies (stats' nextExpiryMs), which the purge judges by too: in the background's chunk, which the
  // page entries load at idle anyway; what changes a store's settings (setDefaultTtl), which it shares with the upgrade's; and
  // the expiry listeners, whose publish tells of the dead item a write claimed the key of; the dead keys and the
  // check of an index's name, which idb-ttl's first load carries (getAllFromIndex, countFromIndex).
  expect(await statics(callsChunk)).toEqual([core, events, index, purge, runtime, settings].sort())
  expect(await statics(settingsChunk)).toEqual([core, locks].sort())
  expect(await statics(eventsChunk)).toEqual([core, locks].sort())
  expect(await statics(noticesChunk)).toEqual([core, locks, runtime].sort())
  // Imported by nothing that idb-ttl/core loads first: its namespace is the one its import() builds.
  expect(await statics(locksChunk)).toEqual([runtime])
  expect(await statics(indexChunk)).toEqual([core])

  // The words of a refusal inside a transaction, which would end while they loaded.
  expect(await statics(transactionChunk)).toEqual([calls, core, fullTexts, index, runtime].sort())
  expect(await statics(generationsChunk)).toEqual([calls, core, purge, runtime, values].sort())
  expect(await statics(valuesChunk)).toEqual([core, runtime].sort())
  expect(await statics(textsChunk)).toEqual([core, hint].sort())
  // Each entry's words of its own refusals bring the words both share; no chunk loaded later imports the resolver.
  expect(await statics(fullOnlyChunk)).toEqual([runtime, texts].sort())
  expect(await statics(fullTextsChunk)).toEqual([core, runtime, texts].sort())
  expect(await statics(resolverChunk)).toEqual([core])
  expect(await statics(hintChunk)).toEqual([core])
  expect(await statics(runtimeChunk)).toEqual([])
  expect(await statics(mirrorChunk)).toEqual([core, runtime].sort())
  expect(await statics(duringChunk)).toEqual([core, runtime].sort())
  // The expiry listeners, which idb-ttl's handle registers at once, and its index reads (chunks apart so that idb-ttl/core's later chunks need not import this one).
  expect(await statics(shared)).toEqual([core, events, hint, index, locks, notices, 'idb'].sort())
  expect(await statics('dist/service-worker.js')).toEqual([core, purge, upgrade, options, storage, watch, evict, stale, touch, follow, calls, transaction, generations, values, fullTexts, mirror, during, chunk, resolver].sort())
  // Its leader election is the background's (the page loads that chunk anyway).
  expect(await statics('dist/cosmos.js')).toEqual([core, locks, purge, mirror, chunk].sort())
  expect(await statics('dist/tanstack.js')).toEqual([core])
  expect(await statics('dist/workbox.js')).toEqual([])
  // idb-ttl/keyval is self-contained: an app of it alone loads no chunk of the others.
  expect(await statics('dist/keyval.js')).toEqual([])
  // The framework bindings import their framework only (the handle is the app's).
  expect(await statics('dist/react.js')).toEqual(['react'])
  expect(await statics('dist/vue.js')).toEqual(['vue'])
  expect(await statics('dist/svelte.js')).toEqual(['svelte/store'])
  for (const file of ['dist/service-worker.js', 'dist/cosmos.js', 'dist/tanstack.js', 'dist/workbox.js', 'dist/keyval.js', 'dist/react.js', 'dist/vue.js', 'dist/svelte.js', shared, coreChunk, pageChunk, purgeChunk, upgradeChunk, optionsChunk, storageChunk, watchChunk, reliefChunk, evictChunk, staleChunk, touchChunk, followChunk, callsChunk, settingsChunk, transactionChunk, generationsChunk, valuesChunk, runtimeChunk, textsChunk, fullOnlyChunk, fullTextsChunk, resolverChunk, mirrorChunk, duringChunk, eventsChunk, indexChunk, noticesChunk, locksChunk]) expect(await scratch.readText(dir, file), file).not.toMatch(/\bimport\s*\(/)
  // What starts the purge worker is in the page chunk alone.
  for (const file of packed.files.filter((f) => f.endsWith('.js') && f !== pageChunk && f !== 'dist/purge-worker.js')) expect(await scratch.readText(dir, file), file).not.toContain('purge-worker.js')
})

for (const [entry, file, budget] of [
  ['idb-ttl/core', 'core.ts', FIRST_LOAD_BUDGET.core],
  ['idb-ttl', 'full.ts', FIRST_LOAD_BUDGET.full],
] as const) {
  test(`the first load of an app of ${entry} (open one TTL store; get, put, getAll, count, delete; the background purge), in a Vite production build: the entry chunk and the chunks it imports statically, at most ${budget} bytes min+gzip; the background purge, the schema work of an upgrade and Storage Buckets are chunks loaded later, with import() (issue #44)`, async () => {
    await scratch.installed(app)
    const { bytes, firstLoad, later } = await scratch.viteFirstLoad(app, file)
    console.log(`${entry}: first load ${bytes} B min+gzip (${firstLoad.map((c) => `${c.file} ${c.gzipped} B`).join(', ')}); later: ${later.map((c) => `${c.file} ${c.gzipped} B`).join(', ')}`)
    expect(bytes).toBeLessThanOrEqual(budget)
    const first = firstLoad.map((c) => c.code).join('\n')
    // The scheduler's lock name and the worker's URL: the background purge, loaded at idle; the
    // words of an upgrade refused over values that are not objects: the schema work, loaded when an open needs it;
    // the registry of databases seen: Storage Buckets, loaded when the app first uses them; the
    // words of a capacity's missing index: the checks of options beyond a store's key and default.
    for (const purge of ['idb-ttl:purge:', 'purge-worker', 'TTL stores hold plain objects only', 'idb-ttl-seen', 'its capacity needs an index over _ts']) {
      expect(first, purge).not.toContain(purge)
      expect(later.map((c) => c.code).join('\n'), purge).toContain(purge)
    }
    // The notices of changes to live queries (their Web Locks' prefix): idb-ttl/core loads them at a handle's first change.
    expect(first.includes('idb-ttl:live:')).toBe(entry === 'idb-ttl')
    // The check of an index's name (reads/index-reads.ts), a method of the scope every read opens until
    // it left for the index calls: idb-ttl's need it at once, idb-ttl/core's handle has none.
    if (entry === 'idb-ttl/core') expect(first).not.toContain('has no index')
    // What holds Web Locks (platform/lock.ts, whose lock ids fall back to random bytes without
    // randomUUID): idb-ttl/core loads it as an open starts, for the settings lock.
    expect(first.includes('randomUUID')).toBe(entry === 'idb-ttl')
    expect(first).toMatch(/\bimport\(/)
  })
}

test('the code is minified, with no source map (useful ones would carry the whole TypeScript source; ones without it make bundlers warn)', async () => {
  const { dir } = await scratch.installed(app)
  const scripts = packed.files.filter((file) => file.endsWith('.js'))
  expect(scripts.length).toBe(41)
  for (const file of scripts) {
    const code = await scratch.readText(dir, file)
    // A few lines (licence comments of what the worker bundles), none indented, no JSDoc.
    expect(code.split('\n').length, file).toBeLessThan(20)
    expect(code, file).not.toMatch(/^[ \t]+\S/m)
    expect(code, file).not.toContain('/**\n *')
    expect(code, file).not.toContain('sourceMappingURL')
  }
})

test('the one .d.ts declares exactly what src/index.ts exports, no internal module augmentation, and TtlDB only through openTtlDB', async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/index.d.ts')
  const declared = await scratch.exportsOf(`${dir}/dist/index.d.ts`)
  // src/index.ts is `export * from './assembly/api.js'` (itself `export * from './common.js'` and more) and the page's openTtlDB.
  const source = (file: string) => scratch.exportsOf(new URL(`../../src/${file}`, import.meta.url).pathname)
  expect(declared).toEqual([...(await source('assembly/common.ts')), ...(await source('assembly/api.ts')), ...(await source('index.ts'))].sort())
  expect(declared).toContain('openTtlDB')
  expect(declarations).not.toMatch(/declare module|BusTopics|from '\.\.?\//)
  expect(declarations).toMatch(/export declare class TtlDB<[^\n]*\{\n(\s*\/\*\*[^\n]*\*\/\n)?\s*private constructor\(\);/)
})

test("dist/core.d.ts declares exactly what src/core.ts exports (common.ts and its openTtlDB), from the package by name (TtlCoreDB is one class, TtlDB's base) but its own openTtlDB", async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/core.d.ts')
  // src/core.ts is `export * from './assembly/common.js'` and the core's openTtlDB.
  const source = (file: string) => scratch.exportsOf(new URL(`../../src/${file}`, import.meta.url).pathname)
  expect(await scratch.exportsOf(`${dir}/dist/core.d.ts`)).toEqual([...(await source('assembly/common.ts')), ...(await source('core.ts'))].sort())
  expect(declarations).toContain('export declare function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlCoreDBOptions<S>): Promise<TtlCoreDB<S>>')
  expect(declarations).not.toMatch(/from '\.\.?\//)
  expect(await scratch.readText(dir, 'dist/index.d.ts')).toMatch(/export declare class TtlCoreDB<[^\n]*\{\n(\s*\/\*\*[^\n]*\*\/\n)?\s*protected constructor\(\);/)
})

test(`an app that uses only idb-ttl/core (get, put, delete, getAll, count, the background purge), bundled by esbuild, loads at most ${CORE_APP_BUDGET} bytes min+gzip, comlink included, and none of what only the full entry has, idb least of all`, async () => {
  const { code, gzipped, inputs } = await scratch.esbuildCoreApp(app)
  expect(inputs).toContain('node_modules/idb-ttl/dist/core.js')
  expect(inputs.filter((file) => file.includes('node_modules/idb/')), "idb: a core handle's raw and upgrade are native").toEqual([])
  expect(gzipped).toBeLessThanOrEqual(CORE_APP_BUDGET)
  // Live queries, transactions, expiry listeners: their own messages are not in it.
  for (const only of ['db.live options', 'db.transaction takes', 'onExpire needs']) expect(code, only).not.toContain(only)
  expect(code).toContain('new Worker(new URL("./purge-worker.js"')
})

test('dist/cosmos.d.ts declares exactly what src/cosmos/index.ts exports (its types from the package by name, idb-ttl and @azure/cosmos)', async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/cosmos.d.ts')
  expect(await scratch.exportsOf(`${dir}/dist/cosmos.d.ts`)).toEqual(await scratch.exportsOf(new URL('../../src/cosmos/index.ts', import.meta.url).pathname))
  expect(declarations).not.toMatch(/from '\.\.?\//)
})

test('dist/tanstack.d.ts declares exactly what src/tanstack/index.ts exports (TtlDB from the package by name)', async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/tanstack.d.ts')
  expect(await scratch.exportsOf(`${dir}/dist/tanstack.d.ts`)).toEqual(await scratch.exportsOf(new URL('../../src/tanstack/index.ts', import.meta.url).pathname))
  expect(declarations).not.toMatch(/from '\.\.?\//)
})

test('dist/keyval.d.ts declares exactly what src/keyval.ts exports, and imports nothing', async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/keyval.d.ts')
  expect(await scratch.exportsOf(`${dir}/dist/keyval.d.ts`)).toEqual(await scratch.exportsOf(new URL('../../src/keyval.ts', import.meta.url).pathname))
  expect(declarations).not.toMatch(/^import /m)
})

test('dist/workbox.d.ts declares exactly what src/workbox/index.ts exports, and needs nothing to compile (its callback types are structural)', async () => {
  const { dir } = await scratch.installed(app)
  const declarations = await scratch.readText(dir, 'dist/workbox.d.ts')
  expect(await scratch.exportsOf(`${dir}/dist/workbox.d.ts`)).toEqual(await scratch.exportsOf(new URL('../../src/workbox/index.ts', import.meta.url).pathname))
  expect(declarations).not.toMatch(/^import /m)
})

test("dist/service-worker.d.ts is the main entry's API by the package's name (one TtlDB class for both entries), as src/service-worker.ts is", async () => {
  const { dir } = await scratch.installed(app)
  expect(await scratch.readText(dir, 'dist/service-worker.d.ts')).toBe("export * from 'idb-ttl'\n")
  const source = (file: string) => scratch.readText(new URL('../../src/', import.meta.url).pathname, file)
  expect((await source('service-worker.ts')).replace('open-inline', 'open-page')).toBe(await source('index.ts'))
})

test('a typed consumer type-checks against the installed package', async () => {
  const result = await scratch.tsc(app, 'tsconfig.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test('a Node program using idb-ttl/cosmos type-checks against the installed package and @azure/cosmos', async () => {
  const result = await scratch.tsc(app, 'tsconfig.node.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test('the tarball passes attw (Are the Types Wrong?, profile esm-only: an ESM-only package) and publint, strict', async () => {
  const attw = await scratch.devTool('attw', [packed.tarball, '--profile', 'esm-only', '--format', 'table-flipped'])
  expect(attw.code, attw.stdout + attw.stderr).toBe(0)
  const publint = await scratch.devTool('publint', ['run', packed.tarball, '--strict'])
  expect(publint.code, publint.stdout + publint.stderr).toBe(0)
  expect(publint.stdout).toContain('All good!')
})

test('every entry type-checks with moduleResolution "node" (node10, no exports map), as attw --pack checks them', async () => {
  const result = await scratch.tsc(app, 'tsconfig.node10.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test('idb-ttl/cosmos, installed with @azure/cosmos, mirrors a container of the in-process Cosmos DB server: a pull brings the server item with its _ts and ttl and the container defaultTtl; a push upserts a local item and its _ts and _etag come back', async () => {
  const server = createHttpServer()
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve))
  try {
    const { code, stdout, stderr } = await scratch.runCosmosNode(app, `http://localhost:${(server.address() as AddressInfo).port}`)
    expect(code, stderr).toBe(0)
    const seen = JSON.parse(stdout.trim().split('\n').pop()!)
    expect(seen).toMatchObject({ pulled: 1, pushed: 1, defaultTtl: 3600, pending: 0 })
    expect(seen.local).toEqual({ text: 'written on the server', ttl: 120, _ts: seen.serverTs })
    expect(seen.pushedOnServer.text).toBe('written locally')
    expect(seen.pushedLocally).toEqual({ _ts: seen.pushedOnServer._ts, _etag: seen.pushedOnServer._etag })
    expect(seen.states).toEqual(expect.arrayContaining(['pulling', 'pushing']))
    expect(seen.states.at(-1)).toBe('idle')
  } finally {
    await new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))
  }
})

test('blocks are read from markdown with their fence line; a marker right before one leaves it out', () => {
  const markdown = [
    '# Title', // 1
    '```sh', // 2
    '```ts', // 3: inside a shell block, not a block of its own
    '```', // 4
    '```ts', // 5
    'const a = 1', // 6
    '```', // 7
    '<!-- not type-checked: a fragment -->', // 8
    '', // 9
    '```typescript', // 10
    'a.b', // 11
    '```', // 12
    '- item', // 13
    '  ```ts', // 14
    '  const b = 2', // 15
    '  ```', // 16
  ].join('\n')
  expect(scratch.tsBlocks(markdown)).toEqual([
    { line: 5, code: 'const a = 1', skipped: undefined },
    { line: 10, code: 'a.b', skipped: 'a fragment' },
    { line: 14, code: 'const b = 2', skipped: undefined },
  ])
})

test('every ```ts block of README.md and docs/ type-checks against the installed package, each a module of its own', async () => {
  const blocks = await scratch.addDocBlocks(app)
  const checked = blocks.filter((block) => !block.skipped)
  expect(checked.filter((block) => block.source === 'README.md').length, 'README.md has a ```ts block').toBeGreaterThan(0)
  expect(checked.filter((block) => block.source.startsWith('docs/')).length, 'docs/ has ```ts blocks').toBeGreaterThan(0)
  const result = await scratch.tsc(app, 'tsconfig.blocks.json')
  // Each error as `file:line`, the line counted in the markdown file, and the block it is in.
  const failures = scratch
    .tscErrors(result.stdout)
    .map((error) => {
      const block = blocks.find((b) => b.file === error.file)
      const at = block ? { source: block.source, line: block.line + error.line } : { source: error.file, line: error.line }
      const within = block ? ` (the block at line ${block.line})` : ''
      return { ...at, text: `${at.source}:${at.line}${within}: ${error.code} ${error.message}` }
    })
    .sort((a, b) => a.source.localeCompare(b.source) || a.line - b.line)
    .map((failure) => failure.text)
  expect(failures, 'blocks that do not compile').toEqual([])
  expect(result.code, result.stdout + result.stderr).toBe(0)
})

test('a wrong store name and a string ttl fail to type-check, each on its own line and nowhere else', async () => {
  const source = await scratch.readText(app, 'wrong.ts')
  const marked = source.split('\n').flatMap((line, i) => (line.includes('// ✗') ? [i + 1] : []))
  expect(marked).toHaveLength(2)
  const result = await scratch.tsc(app, 'tsconfig.wrong.json')
  const errors = scratch.tscErrors(result.stdout)
  expect(result.code).toBe(2)
  expect(errors.map((e) => e.file)).toEqual(['wrong.ts', 'wrong.ts'])
  expect(errors.map((e) => e.line)).toEqual(marked)
  expect(errors[0].message).toContain('"sesions"')
  expect(errors[1].message).toContain("'string' is not assignable to type 'number'")
})

/** What a page showed: the URLs of the workers it started, and its console's warnings and errors (with their URL). */
interface PageRun {
  workers: string[]
  warnings: string[]
  errors: string[]
}

/** The library's own console messages. */
const ours = (messages: string[]) => messages.filter((message) => message.startsWith('idb-ttl:'))

/** Serves `dir` as it is (no SPA fallback: a missing file is a 404); resolves to its URL, ending in `/`. */
async function serve(dir: string): Promise<string> {
  const server = await preview({ root: dir, configFile: false, logLevel: 'silent', appType: 'mpa', build: { outDir: dir }, preview: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  return server.resolvedUrls!.local[0]
}

/**
 * Opens the app at `url` in Chromium, expires an item with the app's clock and waits for the
 * purge to delete it physically, with no failure reported to `onPurge` and no uncaught error.
 */
async function purgesInChromium(url: string): Promise<PageRun> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const page = await browser.newPage()
  const uncaught: string[] = []
  const errors: string[] = []
  const warnings: string[] = []
  page.on('pageerror', (error) => uncaught.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`)
    if (message.type() === 'warning') warnings.push(message.text())
  })
  const workers: string[] = []
  page.on('worker', (worker) => workers.push(worker.url()))
  await page.goto(url)
  await expect.poll(() => page.locator('#status').textContent(), POLL).toBe('ready')
  await expect.poll(() => page.evaluate(() => consumer.isPurger()), POLL).toBe(true)

  await page.evaluate(() => consumer.expireOne())
  expect(await page.evaluate(() => consumer.live())).toEqual(['kept'])
  await expect.poll(() => page.evaluate(() => consumer.onDisk()), POLL).toEqual(['kept'])

  // A slice reports after its last batch has committed: the disk empties first.
  await expect.poll(() => page.evaluate(() => consumer.reports().reduce((n, r) => n + r.deleted, 0)), POLL).toBe(1)
  expect((await page.evaluate(() => consumer.reports())).filter((r) => r.error)).toEqual([])
  expect(uncaught).toEqual([])
  await page.close()
  return { workers, warnings, errors }
}

/** A page whose purge ran in the worker its bundler shipped: nothing on the console about it. Resolves to the worker's path. */
function quietWorker(run: PageRun): string {
  expect(run.errors).toEqual([])
  expect(ours(run.warnings)).toEqual([])
  expect(run.workers, 'the purge worker started').toHaveLength(1)
  return new URL(run.workers[0]).pathname
}

test('vite build, served: in Chromium the purge worker from the package starts and deletes an expired item', async () => {
  const dist = await scratch.viteBuild(app)
  const server = await preview({ root: app, configFile: false, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  const worker = quietWorker(await purgesInChromium(server.resolvedUrls!.local[0]))
  expect(worker).toMatch(/^\/assets\/purge-worker[-\w]*\.js$/)
  expect(scratch.exists(dist, worker)).toBe(true)
})

test('vite build, served: in Chromium a dedicated worker of the app, using the package, purges in the background too (its purge loaded at idle, its purge worker started from the worker)', async () => {
  await scratch.viteBuild(app)
  const server = await preview({ root: app, configFile: false, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const page = await browser.newPage()
  const uncaught: string[] = []
  page.on('pageerror', (error) => uncaught.push(error.message))
  await page.goto(server.resolvedUrls!.local[0])
  await expect.poll(() => page.locator('#status').textContent(), POLL).toBe('ready')
  expect(await page.evaluate(() => consumer.inWorker())).toEqual({ isPurger: true, deleted: 1, onDisk: ['kept'] })
  expect(uncaught).toEqual([])
  await page.close()
})

test('vite dev server: the worker is served from node_modules/idb-ttl and deletes an expired item', async () => {
  const server = await createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  await server.listen()
  expect(quietWorker(await purgesInChromium(server.resolvedUrls!.local[0]))).toBe('/node_modules/idb-ttl/dist/purge-worker.js')
})

test('webpack 5, production, no configuration: it ships the worker under the name it was given, idb-ttl-purge.js (no space), which deletes an expired item', async () => {
  const bundle = await scratch.webpackBuild(app)
  expect(bundle.warnings).toEqual([])
  const scripts = bundle.files.filter((file) => file.endsWith('.js'))
  expect(scripts).toContain('idb-ttl-purge.js')
  expect(scripts.filter((file) => /\s/.test(file))).toEqual([])
  expect(quietWorker(await purgesInChromium(await serve(bundle.dir)))).toBe('/idb-ttl-purge.js')
})

/** The esbuild bundle and where it is served, built by the first test that needs it. */
let esbuilt: (scratch.Bundle & { url: string }) | undefined
async function esbuildServed() {
  if (!esbuilt) {
    const bundle = await scratch.esbuildBuild(app)
    esbuilt = { ...bundle, url: await serve(bundle.dir) }
  }
  return esbuilt
}

test('esbuild ships no worker, without a word; in Chromium the purge runs on the page instead, deletes an expired item, and the console says so once, naming the missing URL', async () => {
  const { dir, url, warnings } = await esbuildServed()
  expect(warnings).toEqual([])
  expect(scratch.exists(dir, 'purge-worker.js')).toBe(false)
  const run = await purgesInChromium(url)
  const missing = new URL('purge-worker.js', url).href
  expect(ours(run.warnings)).toHaveLength(1)
  expect(ours(run.warnings)[0]).toContain(`could not be started from ${missing}: its script did not load`)
  expect(ours(run.warnings)[0]).toContain('copy node_modules/idb-ttl/dist/purge-worker.js beside the bundle')
  expect(run.workers).toEqual([missing])
  // Nothing else on the console (Chromium may log the 404 itself).
  expect(run.errors.filter((error) => !error.endsWith(`(${missing})`))).toEqual([])
})

test('esbuild with dist/purge-worker.js copied beside the bundle: the worker starts and deletes an expired item', async () => {
  const { dir, url } = await esbuildServed()
  await scratch.copyWorker(app, dir)
  expect(quietWorker(await purgesInChromium(url))).toBe('/purge-worker.js')
})

/** What the app's service worker (test/consumer/app/sw.ts) answered the page that registered it. */
interface ServiceWorkerRun {
  error?: string
  precache: ({ url: string; revision: string | null } | string)[] | null
  isPurger: boolean
  hidden: string[]
  purged: number
  afterPurgeExpired: string[]
  onDiskBefore: string[]
  afterPurgeDuring: string[]
  reports: { store: string; deleted: number; error?: unknown }[]
  /** Whether idb-ttl/workbox's plugin served a cached response at once, and 61 s later (maxAgeSeconds: 60). */
  plugin: boolean[]
}

/**
 * Opens `url` (a sw.html) in a fresh Chromium context: it registers the service worker, which,
 * asked by a message, opens a store, expires an item and deletes it with `purgeExpired`, then
 * expires another and deletes it with `purgeDuring` inside that message event, then caches a
 * response through idb-ttl/workbox's plugin. Resolves to what the worker reported, once its
 * deletions and the plugin's answers were checked.
 */
async function purgesInServiceWorker(url: string): Promise<ServiceWorkerRun> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const uncaught: string[] = []
    page.on('pageerror', (error) => uncaught.push(error.message))
    await page.goto(url)
    await expect.poll(() => page.locator('#status').textContent(), POLL).not.toBe('loading')
    const run = await page.evaluate(() => (window as unknown as { swResult: ServiceWorkerRun }).swResult)
    expect(run.error).toBeUndefined()
    expect(await page.locator('#status').textContent()).toBe('done')
    expect(run.isPurger).toBe(true)
    // Hidden from reads at once; gone from the disk once purgeExpired resolved. Not its count: a
    // background slice woken by the write judges by the clock when its batch runs (#42), so it may
    // take `gone-1` first; the reports below count every deletion, whoever made it.
    expect(run.hidden).toEqual(['kept'])
    expect(run.purged).toBeLessThanOrEqual(1)
    expect(run.afterPurgeExpired).toEqual(['kept'])
    // …and the next one by purgeDuring, inside the message event.
    expect(run.onDiskBefore).toEqual(['gone-2', 'kept'])
    expect(run.afterPurgeDuring).toEqual(['kept'])
    expect(run.reports.filter((report) => report.error)).toEqual([])
    expect(run.reports.reduce((n, report) => n + report.deleted, 0)).toBe(2)
    // idb-ttl/workbox, bundled with the package it imports: served while live, not once expired.
    expect(run.plugin).toEqual([true, false])
    expect(uncaught).toEqual([])
    return run
  } finally {
    await context.close()
  }
}

test("a service worker that imports the package, and one that gives Workbox's strategies idb-ttl/workbox's plugin, type-check with lib WebWorker alone (no DOM)", async () => {
  const result = await scratch.tsc(app, 'tsconfig.sw.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test("Serwist 9's strategies take idb-ttl/workbox's plugin as a SerwistPlugin, with Serwist's ExpirationPlugin option names (skipLibCheck, as Serwist's own templates: its declarations need browserslist's types and URLPattern)", async () => {
  const result = await scratch.tsc(app, 'tsconfig.serwist.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test('vite-plugin-pwa (injectManifest): the service worker it builds from idb-ttl/service-worker opens a store and purges, with purgeExpired and with purgeDuring in a message event, and its build carries no purge worker', async () => {
  const dir = await scratch.vitePwaBuild(app)
  expect(scratch.exists(dir, 'sw.js')).toBe(true)
  // A service worker never starts the purge worker: the entry leaves it out, so nothing emits it.
  expect((await readdir(dir, { recursive: true })).filter((file) => file.includes('purge-worker'))).toEqual([])
  const run = await purgesInServiceWorker(new URL('sw.html', await serve(dir)).href)
  // The plugin injected its precache manifest: the page it built is in it, the purge worker not.
  const precached = run.precache?.map((entry) => (typeof entry === 'string' ? entry : entry.url))
  expect(precached).toContain('sw.html')
  expect(precached?.filter((url) => url.includes('purge-worker'))).toEqual([])
})

test('a service worker that imports idb-ttl itself (not idb-ttl/service-worker), built by vite-plugin-pwa (es and iife) and by esbuild (bundle, iife), holds the page entry\'s purge and schema work inlined, with no import() left (service workers forbid it)', async () => {
  const built: Record<string, string> = {}
  for (const format of ['es', 'iife'] as const) built[`vite-plugin-pwa ${format}`] = await scratch.readText(await scratch.vitePwaBuild(app, 'sw-page-entry.ts', format), 'sw-page-entry.js')
  built.esbuild = await scratch.readText((await scratch.esbuildServiceWorker(app, 'sw-page-entry.ts')).dir, 'sw-page-entry.js')
  for (const [bundler, code] of Object.entries(built)) {
    expect(code, bundler).not.toMatch(/\bimport\s*\(/)
    // The scheduler's lock name (the background purge) and the words of an upgrade refused over
    // values that are not objects (the schema work): the chunks the page loads later, inlined.
    for (const later of ['idb-ttl:purge:', 'TTL stores hold plain objects only']) expect(code, `${bundler}: ${later}`).toContain(later)
  }
})

test('esbuild (bundle, iife): the service worker it builds from the package opens a store and purges, with purgeExpired and with purgeDuring in a message event', async () => {
  const { dir, warnings } = await scratch.esbuildServiceWorker(app)
  const run = await purgesInServiceWorker(new URL('sw.html', await serve(dir)).href)
  expect(run.precache).toBeNull()
  // esbuild empties import.meta in an iife (the package's purge worker URL) without a word, the
  // package being in node_modules: harmless, a service worker never starts that worker.
  expect(warnings).toEqual([])
})
