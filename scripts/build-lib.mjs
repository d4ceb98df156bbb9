// Builds the library into dist/: the ESM entries of src/index.ts (`idb-ttl.js`), of src/core.ts
// (`core.js`, `idb-ttl/core`), of src/cosmos/index.ts (`cosmos.js`, `idb-ttl/cosmos`) and of
// src/tanstack/index.ts (`tanstack.js`, `idb-ttl/tanstack`); src/keyval.ts (`keyval.js`,
// `idb-ttl/keyval`), src/workbox/index.ts (`workbox.js`, `idb-ttl/workbox`) and the framework
// bindings are builds of their own, below. They share their common modules through chunks: what
// `idb-ttl/core` loads first (`idb-ttl-core.js`), what `idb-ttl` loads first beyond it
// (`idb-ttl-shared.js`), both imported statically, and the background purge, which the page
// entries load with `import()` at the first idle callback (issue #44: out of the first load):
// the scheduler, leader and page's own purger (`idb-ttl-purge.js`, which the service worker's
// entry imports statically: service workers forbid `import()`) and what starts the purge worker by
// its URL (`idb-ttl-page.js`, which only the page entries load: a service worker's bundler would
// ship the worker file for the URL); the schema work of an upgrade, with the write of a changed declaration (`idb-ttl-upgrade.js`), and
// Storage Buckets with `db.storage()` (`idb-ttl-storage.js`) and the full handle's watch of
// `onLost` and `bucket.expiresAfterItems` (`idb-ttl-watch.js`), which the page entries load with
// `import()` when first needed and the service worker's imports; so too the steps of quota relief
// (`idb-ttl-relief.js`), at the first write refused for lack of space, with the full entries'
// round of eviction (`idb-ttl-evict.js`); the stale reads (`idb-ttl-stale.js`) at the first; the touches of `touchOnRead` stores (`idb-ttl-touch.js`) at an open that declares one, and the write observer of mirrored stores (`idb-ttl-mirror.js`) likewise; the checks of `purgeDuring` (`idb-ttl-during.js`) at its first call; the checks of the options beyond a store's key and default, and of the purge's (`idb-ttl-options.js`), at an open given one; what runs a subscribed live query (`idb-ttl-follow.js`: its subscribers, readings and hearing of changes) at the first subscription; what the handle's less common calls run (`idb-ttl-calls.js`: `update`, `setDefaultTtl`, the keys, `get` by a range, `stats`, `iterate`…) at the first; what runs `db.transaction`
// (`idb-ttl-transaction.js`), at a handle's first transaction, and the writes of stores kept in
// generations (`idb-ttl-generations.js`) with the reading of their values (`idb-ttl-values.js`,
// which the purge imports too), at the first such write or read; the words of the refusals an
// open's checks and the calls make (`idb-ttl-texts.js`), at the first refusal (and with the
// transactions' chunk, which imports them); the resolver the entries export (`idb-ttl-resolver.js`),
// which an app that never calls it never loads; the words of `idb-ttl/core`'s refusals of what only
// `idb-ttl` has (`idb-ttl-full-only.js`), which idb-ttl/core loads with the texts, and of those
// only idb-ttl's handle makes (`idb-ttl-full-texts.js`), which idb-ttl loads with them; the expiry
// listeners and the publishing of expiry events (`idb-ttl-events.js`: in idb-ttl's first load, loaded
// by idb-ttl/core's with the less common calls and the purge); the notices that tell live queries of a
// handle's changes (`idb-ttl-notices.js`: in idb-ttl's first load, loaded by idb-ttl/core's at a
// handle's first change); the check of an index's name, the dead keys and the count of an index's live
// entries (`idb-ttl-index.js`: in idb-ttl's first load, loaded by idb-ttl/core's with the less common
// calls); what changes a store's settings
// (`idb-ttl-settings.js`), which the calls' and the upgrade's chunks import. idb, comlink and
// @azure/cosmos stay external. Library mode inserts no preload helper
// for `import()` (Vite's build-import-analysis leaves it out for `build.lib`), and the build checks
// that none is in dist/. Each Web Worker it starts is a file of its own beside them, all minified,
// and the declarations of the public API (dist/index.d.ts and one .d.ts per other entry).
//
// No source maps. Useful ones must carry the TypeScript sources (`sourcesContent`: src/ is not
// published), which made them 80% of the tarball; without the sources, a user's Vite and webpack
// warn of the missing files. The app's bundler minifies the library again anyway.
//
// Declarations: dts-bundle-generator bundles the public API from src/index.ts into one file.
// tsconfig.build.json strips `@internal` members: TtlDB's constructor, which takes internal
// types, is declared `private` instead, so `new TtlDB()` does not type-check (use openTtlDB).
// Internal modules' `declare module '…/platform/bus.js'` augmentations stay out (the tool inlines
// no relative module augmentation, and nothing public refers to the bus); the bundle is then
// type-checked on its own, library checks on, against idb's types.
//
// A worker is loaded by the browser directly, with no bundler or import map in between, so it
// cannot import 'idb' or 'comlink' by bare name: its bundle includes what it needs. The entry keeps
// the literal `new Worker(new URL('./<name>.js', import.meta.url), …)` form so that an app's
// bundler (Vite, webpack, Parcel) still recognises and ships the worker.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import MagicString from 'magic-string'
import { build as esbuild } from 'esbuild'
import { build } from 'vite'

const require = createRequire(import.meta.url)

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

/**
 * The modules `entry` imports statically (absolute paths), as esbuild resolves them from src/: what
 * a page loads before its first call when the entry is `idb-ttl/core` or `idb-ttl`, or (for a module
 * they load with `import()`) what that module adds.
 */
async function staticModules(entry) {
  const { metafile } = await esbuild({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    outdir: path.join(tmpdir(), 'idb-ttl-modules'),
    external: ['idb', 'comlink'],
    // What is loaded later (`import()`), and the purge worker, which the page starts by URL, are not.
    plugins: [{ name: 'later', setup: (b) => b.onResolve({ filter: /./ }, (a) => (a.kind === 'new-url' || a.kind === 'dynamic-import' ? { external: true, path: a.path } : undefined)) }],
    logLevel: 'silent',
  })
  return new Set(Object.keys(metafile.inputs).map((file) => path.resolve(root, file)))
}
/** What `idb-ttl/core` loads first, and `idb-ttl`. */
const [core, full] = await Promise.all([staticModules('src/core.ts'), staticModules('src/index.ts')])
/** The entries' own `openTtlDB`, which load the background with `import()`: no chunk a service worker imports holds them. */
const OPENS = /[\\/]src[\\/](core|index|assembly[\\/](open-core|open-page))\.ts$/
/** The words of the refusals an open's checks make (`rules/texts.ts`), loaded at the first refusal. */
const TEXTS = /[\\/]src[\\/]rules[\\/]texts\.ts$/
/**
 * The resolver as the app calls it, with the words of its refusals (`rules/resolver.ts`), which every
 * entry exports: apart from what the page entries load first, whose checks refuse in words loaded
 * later (`rules/texts.ts` takes the resolver's): an app that never calls it loads none of it.
 */
const RESOLVER = /[\\/]src[\\/]rules[\\/]resolver\.ts$/
/**
 * How a live query tells its subscribers of errors, which the full entry's first load and the later
 * chunk of live queries both import: in the core's chunk, as a later chunk that imports the
 * `shared` chunk makes an app's bundler split its entry from the core's chunk (+0.7 kB measured).
 */
const LIVE_REPORT = /[\\/]src[\\/]live[\\/]report\.ts$/
/** The reading of values kept in generations (`generations/values.ts`), apart: the purge and the writes of such stores import it. */
const VALUES = /[\\/]src[\\/]generations[\\/]values\.ts$/
/** What changes a store's settings, shared by the calls' chunk (`setDefaultTtl`) and the upgrade's (a changed declaration). */
const SETTINGS = /[\\/]src[\\/](layout[\\/]settings-change|rules[\\/]default-change)\.ts$/
/** What starts the purge worker, loaded at the first idle callback by both page entries: `background/page.ts` and the worker's client. */
const STARTS_WORKER = /[\\/]src[\\/]background[\\/](page|worker[\\/](client|start))\.ts$/
/**
 * The background (scheduler, leader, wake-ups) and the page's own purger (`background/inline.ts`),
 * less what `idb-ttl` loads first: the service worker imports it, the page entries load it at idle.
 */
const purge = new Set([...(await staticModules('src/background/inline.ts'))].filter((id) => !full.has(id)))
/** Storage Buckets and `db.storage()` (`handle/storage-work.ts`), and the watch of `onLost` and `bucket.expiresAfterItems`. */
const [storage, watch] = await Promise.all([staticModules('src/handle/storage-work.ts'), staticModules('src/handle/storage-watch.ts')])
/** The steps of quota relief (`purge/relieve.ts`), loaded at the first full disk; the full entries' round of eviction with them (`purge/relief.ts`). */
const relief = await staticModules('src/purge/relieve.ts')
const evictRound = await staticModules('src/purge/relief.ts')
/** The stale reads (`reads/stale.ts`), less what `idb-ttl` loads first: loaded at a handle's first `getStale` or `getAllStale`. */
const staleReads = new Set([...(await staticModules('src/reads/stale.ts'))].filter((id) => !full.has(id)))
/** The touches of `touchOnRead` stores (`reads/touch.ts`), less what `idb-ttl` loads first: loaded by an open that declares one. */
const touchWork = new Set([...(await staticModules('src/reads/touch.ts'))].filter((id) => !full.has(id)))
/** What runs a subscribed live query (`live/subscribers.ts`: its readings, hearing of changes, timer), less what `idb-ttl` loads first: loaded at a handle's first subscription. */
const following = new Set([...(await staticModules('src/live/subscribers.ts'))].filter((id) => !full.has(id)))
/** What runs `db.transaction`, less what `idb-ttl` loads first: the page entries load it at a handle's first transaction. */
const transactions = new Set([...(await staticModules('src/handle/transact.ts'))].filter((id) => !full.has(id)))
/** What the handle's less common calls run (`assembly/calls.ts`), less what `idb-ttl` loads first: loaded at the first of them. */
const calls = new Set([...(await staticModules('src/assembly/calls.ts'))].filter((id) => !full.has(id)))
/** The writes of stores kept in generations and the drop of unreferenced ones, less what `idb-ttl` loads first: loaded on first use likewise. */
/** The write observer of mirrored stores (`transaction/mirror-queue.ts`: the outbox, Cosmos DB's ids), less what `idb-ttl` loads first: loaded by an open that declares one. */
const mirrorWork = new Set([...(await staticModules('src/transaction/mirror-queue.ts'))].filter((id) => !full.has(id)))
const stashWork = new Set([...(await staticModules('src/writes/stashed-writes.ts')), ...(await staticModules('src/generations/stash.ts'))].filter((id) => !full.has(id)))

const common = { configFile: false, root, publicDir: false, logLevel: 'info' }
/** Fully minified output that keeps pure annotations and licence comments (the worker bundles comlink and idb). */
const MINIFIED = { minify: true, comments: { annotation: true, legal: true, jsdoc: false } }

const workers = []
await build({
  ...common,
  plugins: [workerFiles(workers)],
  build: {
    outDir,
    emptyOutDir: true,
    minify: true,
    sourcemap: false,
    // Two entries in one build: `idb-ttl/cosmos` shares the main entry's modules (the handle's
    // registry of routes, TtlError) through a chunk both import, rather than a copy of its own.
    lib: {
      entry: {
        'idb-ttl': path.join(root, 'src/index.ts'),
        core: path.join(root, 'src/core.ts'),
        'service-worker': path.join(root, 'src/service-worker.ts'),
        cosmos: path.join(root, 'src/cosmos/index.ts'),
        tanstack: path.join(root, 'src/tanstack/index.ts'),
      },
      formats: ['es'],
      fileName: (_, name) => `${name}.js`,
    },
    rolldownOptions: {
      // @azure/cosmos: an optional peer the app brings (src/ imports only its types).
      external: ['idb', 'comlink', '@azure/cosmos'],
      output: {
        // Named without a hash: the package's version names its files, and the app's bundler hashes the
        // chunks it emits. Each name appears twice in an app's first load (its import() and its list of
        // files to preload), a hash's random characters compress badly: -0.11 kB (idb-ttl/core) and
        // -0.32 kB (idb-ttl) off the Vite apps' first loads.
        chunkFileNames: 'idb-ttl-[name].js',
        // One chunk for what idb-ttl/core loads first, one for what idb-ttl loads first beyond it,
        // whatever subset each entry imports (idb-ttl/tanstack needs only TtlError), and the
        // background's two, loaded at idle.
        codeSplitting: {
          groups: [
            // Each group takes the modules its captured ones import, unless a group before it took
            // them: the background's comes after what the page entries load first, and the worker's
            // start last, so that no chunk a service worker imports holds it.
            { name: 'core', priority: 12, test: (id) => (core.has(id) || LIVE_REPORT.test(id)) && !OPENS.test(id) && !RESOLVER.test(id) },
            // The refusal of an unknown option with the closest known name: imported by the
            // texts, by `db.live` (idb-ttl loads it first) and by the check of `bucket`.
            { name: 'hint', priority: 11, test: /[\\/]src[\\/]rules[\\/]option-hint\.ts$/ },
            // The public resolver with its words, which the entries re-export and no chunk loaded later
            // imports (one that did made an app's bundler split idb-ttl's first load in two, +1.2 kB).
            { name: 'resolver', priority: 11, test: RESOLVER },
            // The words of the refusals of an open's checks and of the calls: loaded at the first by the page
            // entries (`import()`) and with the transactions' chunk, imported by the service worker's.
            { name: 'texts', priority: 10, test: TEXTS },
            // The expiry listeners and the publishing of expiry events (`events/listeners.ts`): in
            // idb-ttl's first load; idb-ttl/core's loads it with the less common calls (the claim
            // of a key a dead item holds publishes it) and the purge. Apart from the shared chunk,
            // which those later chunks of idb-ttl/core would otherwise import whole.
            { name: 'events', priority: 10, test: /[\\/]src[\\/]events[\\/]listeners\.ts$/ },
            // What tells live queries of a change (`live/notices.ts`): in idb-ttl's first load;
            // idb-ttl/core's loads it at a handle's first change. Apart from the shared chunk, which
            // the core's chunk would otherwise load, and so split an app's first load of idb-ttl in two.
            { name: 'notices', priority: 10, test: /[\\/]src[\\/]live[\\/]notices\.ts$/ },
            // The check of an index's name, the dead keys and the count of an index's live entries
            // (`reads/index-reads.ts`): in idb-ttl's first load (getAllFromIndex, countFromIndex);
            // idb-ttl/core's loads it with the less common calls. Apart from the shared chunk, which
            // the calls', transactions' and live queries' chunks would otherwise import whole.
            { name: 'index', priority: 10, test: /[\\/]src[\\/]reads[\\/]index-reads\.ts$/ },
            // What holds Web Locks (`platform/lock.ts`): in idb-ttl's first load (notices, listeners, the
            // settings lock); idb-ttl/core's loads it as an open starts, for the settings lock
            // (`layout/held-settings.ts`). Apart from the shared chunk, which idb-ttl/core would otherwise load whole.
            { name: 'locks', priority: 11, test: /[\\/]src[\\/]platform[\\/]lock\.ts$/ },
            // The words of the refusals only idb-ttl's handle makes: loaded with the texts by idb-ttl's page entry.
            // Before the transactions' group, whose chunk imports them and would otherwise take them.
            { name: 'full-texts', priority: 10, test: /[\\/]src[\\/]rules[\\/]full-texts\.ts$/ },
            // The words of idb-ttl/core's refusals of what only idb-ttl has: loaded with the texts by idb-ttl/core alone.
            { name: 'full-only', priority: 0, test: /[\\/]src[\\/]rules[\\/]full-only-texts\.ts$/ },
            { name: 'shared', priority: 9, test: (id) => full.has(id) && !OPENS.test(id) && !RESOLVER.test(id) },
            // The reading of values kept in generations: loaded by the page entries with the writes of
            // such stores, imported by the purge (so before its group, which would take it with them).
            { name: 'values', priority: 9, test: VALUES },
            // The background with the page's own purger, loaded at idle by the page entries,
            // imported by the service worker's.
            { name: 'purge', priority: 8, test: (id) => purge.has(id) },
            // What changes a store's settings (`layout/settings-change.ts`, `rules/default-change.ts`): imported by
            // `setDefaultTtl` (the calls' chunk) and by the write of a changed declaration (the upgrade's chunk). Before
            // the upgrade's group, which would otherwise take it with the modules it captures, and pull it into the calls'.
            { name: 'settings', priority: 7, test: SETTINGS },
            // What starts the purge worker by its URL, apart: the page entries load it at idle, the
            // service worker's never (a bundler that sees the URL ships the worker file with it).
            { name: 'page', priority: 7, test: STARTS_WORKER },
            // The schema work of an open that creates or upgrades the database: the page entries load
            // it with `import()` when an open first needs it, the service worker's imports it.
            { name: 'upgrade', priority: 6, test: /[\\/]src[\\/]layout[\\/]upgrade\.ts$/ },
            // Storage Buckets and `db.storage()`, then the full handle's watch of its storage (`onLost`,
            // `bucket.expiresAfterItems`), which idb-ttl/core never loads: the page entries load
            // them with `import()` when an app first uses one, the service worker's imports them.
            { name: 'storage', priority: 5, test: (id) => storage.has(id) },
            { name: 'watch', priority: 4, test: (id) => watch.has(id) },
            // The steps of quota relief, with the undoing of what Firefox keeps of a refused write: the page
            // entries load them at the first write refused for lack of space, the service worker's imports them.
            { name: 'relief', priority: 3, test: (id) => relief.has(id) },
            // What the handle's less common calls run: loaded by the page entries at the first of them, and
            // by a transaction (whose reads and updates share it), imported by the service worker's. Before
            // the transaction's group, which would otherwise take it with the modules it captures.
            { name: 'calls', priority: 2, test: (id) => calls.has(id) },
            // What runs transactions: loaded by the page entries at a handle's first, imported by the service worker's.
            { name: 'transaction', priority: 2, test: (id) => transactions.has(id) && !calls.has(id) },
            // The writes of stores kept in generations (`evictOnQuota`): loaded likewise at the first.
            { name: 'generations', priority: 1, test: (id) => stashWork.has(id) && !transactions.has(id) && !calls.has(id) },
            // The round of eviction of `evictOnQuota` stores, loaded with the steps of relief by the full entries alone.
            { name: 'evict', priority: 0, test: (id) => evictRound.has(id) && !relief.has(id) },
            // The stale reads: loaded by the page entries at the first `getStale` or `getAllStale`.
            { name: 'stale', priority: 0, test: (id) => staleReads.has(id) },
            // The touches of `touchOnRead` stores: loaded by the page entries at an open that declares one.
            { name: 'touch', priority: 0, test: (id) => touchWork.has(id) },
            // What follows a subscribed live query: loaded by the page entries at a handle's first subscription.
            { name: 'follow', priority: 0, test: (id) => following.has(id) },
            // The checks and refusals of `purgeDuring`: loaded by the page entries at its first call.
            { name: 'during', priority: 0, test: /[\\/]src[\\/]background[\\/]during-work\.ts$/ },
            // The write observer of mirrored stores: loaded by the page entries at an open that declares one, imported by idb-ttl/cosmos.
            { name: 'mirror', priority: 0, test: (id) => mirrorWork.has(id) },
            // The checks of the options beyond a store's key and default, and of the purge's: loaded by the page entries at an open given one.
            { name: 'options', priority: 0, test: /[\\/]src[\\/](layout[\\/]options|rules[\\/]option-checks)\.ts$/ },
          ],
        },
        // Whitespace too (Vite's library mode leaves it, for fear of losing the `@__PURE__`
        // annotations an app's bundler tree-shakes by: they are kept).
        ...MINIFIED,
      },
    },
  },
})
if (workers.length === 0) throw new Error('no `new Worker(new URL(...))` found in src: the worker would be missing')

// The minifier prints the worker's URL and the chunks loaded with `import()` as template literals;
// every bundler knows the quoted form, so they get their quotes back.
for (const file of readdirSync(outDir).filter((f) => f.endsWith('.js'))) {
  const code = readFileSync(path.join(outDir, file), 'utf8')
  const quoted = code
    .replace(/new Worker\(new URL\(`(\.\/[\w-]+\.js)`,import\.meta\.url\)/g, 'new Worker(new URL("$1",import.meta.url)')
    .replace(/\bimport\(`(\.\/[\w-]+\.js)`\)/g, 'import("$1")')
  if (quoted !== code) writeFileSync(path.join(outDir, file), quoted)
}
// Vite inserts its preload helper (which needs `document`) before an `import()` in an app's build,
// not in library mode: none may be in dist/, where a dedicated or shared worker would load it.
// `idb-ttl/service-worker` and every chunk it imports statically have no `import()` at all.
const built = (file) => readFileSync(path.join(outDir, file), 'utf8')
for (const file of readdirSync(outDir).filter((f) => f.endsWith('.js'))) {
  if (/modulepreload|vite:preloadError/.test(built(file))) throw new Error(`dist/${file}: a preload helper of Vite is in it (it needs \`document\`, which workers lack)`)
}
const staticClosure = (file, seen = new Set()) => {
  if (seen.has(file)) return seen
  seen.add(file)
  for (const [, imported] of built(file).matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)) staticClosure(imported, seen)
  return seen
}
for (const file of staticClosure('service-worker.js')) if (/\bimport\s*\(/.test(built(file))) throw new Error(`dist/${file}: \`import()\` in what idb-ttl/service-worker imports (service workers forbid it)`)
const literal = workers.map(({ name }) => `new Worker(new URL("./${name}.js",import.meta.url)`)
const chunks = readdirSync(outDir).filter((f) => f.endsWith('.js')).map((f) => readFileSync(path.join(outDir, f), 'utf8'))
for (const form of literal) if (!chunks.some((code) => code.includes(form))) throw new Error(`\`${form}\` is in no chunk of dist/: bundlers would not ship the worker`)

/** `dist/<name>.js`: `entry` bundled alone, with everything it imports but `external`, minified. */
function buildAlone(entry, name, external = []) {
  return build({
    ...common,
    build: {
      outDir,
      emptyOutDir: false,
      minify: true,
      sourcemap: false,
      lib: { entry, formats: ['es'], fileName: () => `${name}.js` },
      rolldownOptions: { external, output: MINIFIED },
    },
  })
}

for (const { entry, name } of workers) await buildAlone(entry, name)

// `idb-ttl/keyval` is a build of its own, self-contained (keyval.js imports nothing): it shares
// with the other entries only the resolver (rules/ttl.ts) and TtlError, which a shared chunk would
// bring in with the whole core; an app that uses it alone loads 1.5 kB at most (.size-limit.js).
await buildAlone(path.join(root, 'src/keyval.ts'), 'keyval')
// `idb-ttl/workbox` too (workbox.js imports nothing): its own small store over raw IndexedDB, the
// resolver and TtlError, so that a service worker with Workbox's CacheFirst and the plugin is at
// most 6 kB above the same worker with ExpirationPlugin (issue #44, .size-limit.js).
await buildAlone(path.join(root, 'src/workbox/index.ts'), 'workbox')

// `idb-ttl/react`, `idb-ttl/vue`, `idb-ttl/svelte`: builds of their own, src/bindings/ inside each
// and the framework (an optional peer) external. They use the handle's public calls and types
// only, so they import nothing of the library: an app pays only for the one it imports.
const BINDINGS = { react: ['react'], vue: ['vue'], svelte: ['svelte', 'svelte/store'] }
for (const [name, external] of Object.entries(BINDINGS)) {
  await buildAlone(path.join(root, `src/${name}.ts`), name, external)
  const imports = [...readFileSync(path.join(outDir, `${name}.js`), 'utf8').matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1])
  if (imports.some((source) => !external.includes(source))) throw new Error(`dist/${name}.js imports ${imports.join(', ')}: only ${external.join(', ')} may stay external`)
}

const { generateDtsBundle } = require('dts-bundle-generator')
const [bundled] = generateDtsBundle(
  [
    {
      filePath: path.join(root, 'src/index.ts'),
      libraries: { importedLibraries: ['idb'] },
      output: { noBanner: true, exportReferencedTypes: false },
    },
  ],
  { preferredConfigPath: path.join(root, 'tsconfig.build.json') },
)
const CLASS = /^export declare class TtlDB<[^\n]*\{\n/m
if (!CLASS.test(bundled) || /^\s*(private |protected )?constructor\(/m.test(bundled.slice(bundled.search(CLASS)).split('\n}\n')[0])) {
  throw new Error('dist/index.d.ts: expected `export declare class TtlDB<…> {` with its @internal constructor stripped')
}
// TtlCoreDB, the full handle's base, gets a protected one: TtlDB extends it, and nobody news it.
const CORE_CLASS = /^export declare class TtlCoreDB<[^\n]*\{\n/m
if (!CORE_CLASS.test(bundled)) throw new Error('dist/index.d.ts: expected `export declare class TtlCoreDB<…> {`')
const declarations = bundled
  .replace(CLASS, (open) => `${open}\t/** Use {@link openTtlDB}. */\n\tprivate constructor();\n`)
  .replace(CORE_CLASS, (open) => `${open}\t/** Use {@link openTtlDB} (of \`idb-ttl/core\` or \`idb-ttl\`). */\n\tprotected constructor();\n`)
if (/declare module|BusTopics/.test(declarations)) throw new Error('dist/index.d.ts: an internal module augmentation leaked into it')
const dts = path.join(outDir, 'index.d.ts')
writeFileSync(dts, declarations)
// The bundle on its own, as a user's tsc sees it: library checks on, DOM and idb's types only.
const checkDir = mkdtempSync(path.join(tmpdir(), 'idb-ttl-dts-'))
try {
  const compilerOptions = { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] }
  writeFileSync(path.join(checkDir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [dts] }))
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', checkDir], { stdio: 'inherit' })
} finally {
  rmSync(checkDir, { recursive: true, force: true })
}

// dist/cosmos.d.ts: the mirror's own types, bundled from src/cosmos/types.ts (self-contained),
// and its functions declared against the packages' own types: TtlDB from 'idb-ttl' itself (an
// inlined copy would be another class, which a handle would not match), Container from the peer.
const [cosmosTypes] = generateDtsBundle(
  [{ filePath: path.join(root, 'src/cosmos/types.ts'), output: { noBanner: true, exportReferencedTypes: false } }],
  { preferredConfigPath: path.join(root, 'tsconfig.build.json') },
)
writeFileSync(
  path.join(outDir, 'cosmos.d.ts'),
  `import type { Container } from '@azure/cosmos'\nimport type { TtlDB } from 'idb-ttl'\n\n${cosmosTypes}
/**
 * Mirrors an Azure Cosmos DB container (or one partition key value of it) in \`store\`, declared with
 * \`keyPath: 'id'\` and \`keepTs: true\` (docs/cosmos.md).
 */
export declare function syncCosmos(db: TtlDB<any>, store: string, container: Container, options?: SyncOptions): CosmosSync
/** The default conflict resolution: last writer wins on \`_ts\`. */
export declare function lastWriterWins(conflict: Conflict): Resolution
/** A round ended because the server could not be reached. */
export declare class OfflineError extends Error {
\treadonly cause: unknown
\tconstructor(cause: unknown)
}
`,
)

// dist/tanstack.d.ts: the same way, its types bundled from src/tanstack/types.ts.
const [tanstackTypes] = generateDtsBundle(
  [{ filePath: path.join(root, 'src/tanstack/types.ts'), output: { noBanner: true, exportReferencedTypes: false } }],
  { preferredConfigPath: path.join(root, 'tsconfig.build.json') },
)
writeFileSync(
  path.join(outDir, 'tanstack.d.ts'),
  `import type { TtlDB } from 'idb-ttl'\n\n${tanstackTypes}
/**
 * TanStack Query's \`AsyncStorage\` (for \`experimental_createQueryPersister\`) over \`store\`, declared
 * with no \`keyPath\` (docs/tanstack.md).
 */
export declare function ttlStorage<TStorageValue = string>(db: TtlDB<any>, store: string, options?: TtlStorageOptions): TtlAsyncStorage<TStorageValue>
`,
)

// dist/core.d.ts: the main entry's types (TtlCoreDB is one class), and its own openTtlDB.
writeFileSync(
  path.join(outDir, 'core.d.ts'),
  `import type { DBSchema, OpenTtlCoreDBOptions, TtlCoreDB } from 'idb-ttl'

export { TtlCoreDB, TtlError, deleteTtlDB, requestPersistence, checkDefaultTtl, effectiveTtl, expiresAt, isExpired, isValidTtl, itemTtl, MAX_TTL, ttlUntil } from 'idb-ttl'
export type { AnyTtlDB, TtlErrorCode, BucketOptions, LostReport, PersistenceAnswer, StorageCall, StorageStatus, DefaultTtl, ItemTtl, ResolveOptions, TtlValues, Changes, DBSchema, IndexConfig, OpenTtlCoreDBOptions, OpenTtlDBOptions, PurgeOptions, Query, Stamped, StoreConfig, TtlFields, Writable } from 'idb-ttl'

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live, with the
 * basic calls; its background purge runs in a Web Worker (docs/api.md, "idb-ttl/core"). The handle's
 * \`raw\` and \`upgrade\`'s first argument are the native \`IDBDatabase\` (\`idb-ttl\` gives idb's
 * \`IDBPDatabase\`: \`import { wrap } from 'idb'\`, then \`wrap(db.raw)\`).
 * @throws TtlError \`UNSUPPORTED\` for \`maxEntries\`, \`evict\`, \`evictOnQuota\`, \`touchOnRead\`, \`mirror\` or purge mode \`'inline'\` (import \`idb-ttl\`), and as \`idb-ttl\`'s
 */
export declare function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlCoreDBOptions<S>): Promise<TtlCoreDB<S>>
`,
)

// dist/keyval.d.ts: bundled from src/keyval.ts, self-contained as its module is.
const [keyvalTypes] = generateDtsBundle(
  [{ filePath: path.join(root, 'src/keyval.ts'), output: { noBanner: true, exportReferencedTypes: false } }],
  { preferredConfigPath: path.join(root, 'tsconfig.build.json') },
)
writeFileSync(path.join(outDir, 'keyval.d.ts'), keyvalTypes)

// dist/service-worker.d.ts: the main entry's API, which it shares to the type (TtlDB is one class).
writeFileSync(path.join(outDir, 'service-worker.d.ts'), "export * from 'idb-ttl'\n")

// dist/workbox.d.ts: the same way, its types bundled from src/workbox/types.ts (structural: neither
// workbox-core nor serwist is needed to compile against it).
const [workboxTypes] = generateDtsBundle(
  [{ filePath: path.join(root, 'src/workbox/types.ts'), output: { noBanner: true, exportReferencedTypes: false } }],
  { preferredConfigPath: path.join(root, 'tsconfig.build.json') },
)
writeFileSync(
  path.join(outDir, 'workbox.d.ts'),
  `${workboxTypes}
/**
 * A Workbox 7 / Serwist 9 strategy plugin that expires cached responses with idb-ttl: a response
 * whose entry expired is never served, not even once, but with \`staleIfError\` to a strategy whose
 * network failed, marked (docs/workbox.md).
 */
export declare class TtlExpirationPlugin {
\tconstructor(options?: TtlExpirationPluginOptions)
\t/** Announces a write before the strategy puts a response in the cache; the cache key is left as it is. */
\tcacheKeyWillBeUsed: (params: CacheKeyWillBeUsedParams) => Promise<Request>
\t/** Serves the cached response only while its entry is live; \`null\` sends the strategy to the network. */
\tcachedResponseWillBeUsed: (params: CachedResponseWillBeUsedParams) => Promise<Response | null>
\t/** Records the response just cached, with its lifetime. */
\tcacheDidUpdate: (params: CacheDidUpdateParams) => Promise<void>
\t/** Ends the writes of the strategy run; after a cache write refused at a full disk, with \`evictOnQuota\`, each cache of the plugin gives up a share. */
\thandlerDidComplete: (params: HandlerDidCompleteParams) => Promise<void>
\t/** Notes that the strategy's fetch failed: the network, not the server, did not answer. */
\tfetchDidFail: (params: FetchDidFailParams) => Promise<void>
\t/** With \`staleIfError\`, answers a run whose fetch failed with the expired response its cache read met, within the grace, marked \`X-Idb-Ttl-Stale\`. */
\thandlerDidError: (params: HandlerDidErrorParams) => Promise<Response | undefined>
\t/** Deletes every cache this plugin has handled, and the databases of their entries. */
\tdeleteCacheAndMetadata(): Promise<void>
}
`,
)

// dist/react.d.ts, dist/vue.d.ts, dist/svelte.d.ts: each entry's declarations as TypeScript emits
// them from the file alone (its exports are annotated), and their shared types in
// dist/bindings.d.ts, against the package's own types ('idb-ttl': an inlined copy of TtlDB would be
// another class, which a handle would not match). Checked like dist/index.d.ts, with the frameworks' types.
const ts = require('typescript')
const declarations_ = (file) => ts.transpileDeclaration(readFileSync(path.join(root, file), 'utf8'), { fileName: file, compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText
writeFileSync(path.join(outDir, 'bindings.d.ts'), declarations_('src/bindings/types.ts').replace("'../index.js'", "'idb-ttl'"))
for (const name of Object.keys(BINDINGS)) {
  const dts = declarations_(`src/${name}.ts`).replace("'./index.js'", "'idb-ttl'").replaceAll("'./bindings/types.js'", "'./bindings.js'")
  if (/from '\.\/(?!bindings\.js')/.test(dts)) throw new Error(`dist/${name}.d.ts refers to a module of src/`)
  writeFileSync(path.join(outDir, `${name}.d.ts`), dts)
}
const bindingsCheck = mkdtempSync(path.join(tmpdir(), 'idb-ttl-bindings-dts-'))
try {
  const compilerOptions = {
    strict: true, noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
    baseUrl: root, paths: { 'idb-ttl': ['dist/index.d.ts'] },
  }
  const files = Object.keys(BINDINGS).map((name) => path.join(outDir, `${name}.d.ts`))
  writeFileSync(path.join(bindingsCheck, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }))
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', bindingsCheck], { stdio: 'inherit' })
} finally {
  rmSync(bindingsCheck, { recursive: true, force: true })
}

console.log(`dist/react.js, dist/vue.js, dist/svelte.js, their .d.ts and dist/bindings.d.ts written`)
console.log(`dist/idb-ttl.js, dist/core.js, dist/core.d.ts, dist/service-worker.js, dist/service-worker.d.ts, dist/cosmos.js, dist/cosmos.d.ts, dist/tanstack.js, dist/tanstack.d.ts, dist/workbox.js, dist/workbox.d.ts, dist/keyval.js, dist/keyval.d.ts, ${workers.map((w) => `dist/${w.name}.js`).join(', ')} and dist/index.d.ts written`)
