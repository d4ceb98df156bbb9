// What each feature of `idb-ttl` adds to an app of `idb-ttl/core`, in bytes min+gzip (issue #33:
// "a bench row per feature shows what it adds"). None of these features can be added to a core
// app on its own: `idb-ttl/core`'s handle has no live queries, transactions, listeners or index
// calls, and its `openTtlDB` refuses `maxEntries`, `evict`, `evictOnQuota`, `touchOnRead` and
// `mirror`. An app that uses one imports `idb-ttl` instead, and pays for all of it: the first row,
// `idb-ttl` less `idb-ttl/core`. What the feature's own code weighs inside that is measured by
// cutting it out: the app `import { openTtlDB } from 'idb-ttl'` is bundled from src/ by esbuild
// (idb and comlink included, minified, gzipped), once as it is and once with the feature cut, and
// the row is the difference. A cut replaces exports of the feature's own modules with empty stubs
// and drops members of the full handle's classes (never code an app of `idb-ttl/core` carries);
// what only the cut code used goes with it, by tree-shaking. Code two features share (the page's
// purge and quota eviction share `purge/eviction.ts`) is in neither row's own bytes: a feature
// that `shares` with another also gets its bytes with the shared code (the two cut together, less
// the other's own), and the row of all the cuts together shows what the rows leave out. A cut that no longer finds its export or member throws.
//
// `node scripts/size-features.mjs` prints the rows.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * Each feature's cut: `exports` (module → names stubbed) and `members` (module → class → members
 * dropped).
 */
export const FEATURES = [
  {
    id: 'live',
    name: 'live queries (db.live)',
    exports: { 'src/live/hub.ts': ['LiveHub'] },
    members: { 'src/assembly/db.ts': { TtlDB: ['live'] } },
  },
  {
    id: 'transactions',
    name: 'transactions (db.transaction)',
    exports: { 'src/transaction/check.ts': ['checkTransaction'] },
    members: { 'src/assembly/db.ts': { TtlDB: ['transaction'] }, 'src/handle/routes.ts': { Routes: ['transact'] } },
  },
  {
    id: 'quota',
    name: 'capacity and quota eviction (evictOnQuota relief on the page, values kept in generations; maxEntries trims run in the purge)',
    shares: 'page-purge',
    exports: { 'src/writes/writes.ts': ['generationsWith'] },
    members: { 'src/handle/routes.ts': { Routes: ['relief'] } },
  },
  {
    id: 'events',
    name: 'expiry events (onExpire, onPurge, isPurger)',
    exports: { 'src/events/listeners.ts': ['ExpiryListeners'] },
    members: { 'src/assembly/db.ts': { TtlDB: ['onExpire', 'onPurge', 'isPurger'] } },
  },
  {
    id: 'index',
    name: 'index reads (getFromIndex, getAllFromIndex, getAllKeysFromIndex, countFromIndex)',
    exports: {},
    members: { 'src/assembly/db.ts': { TtlDB: ['getFromIndex', 'getAllFromIndex', 'getAllKeysFromIndex', 'countFromIndex'] } },
  },
  {
    id: 'mirror',
    name: "the Cosmos DB mirror's hooks in the handle (mirror: true, write observers)",
    exports: { 'src/transaction/mirror-queue.ts': ['queueObserver'], 'src/transaction/observers.ts': ['Observers'] },
    members: { 'src/assembly/db.ts': { TtlDB: ['observed'] }, 'src/handle/routes.ts': { Routes: ['observers', 'gate'] } },
  },
  {
    id: 'page-purge',
    name: "the page's own purge (purge mode 'inline', and where no Worker starts)",
    exports: { 'src/background/worker/purge-api.ts': ['createPurgeApi'] },
    members: {},
  },
  {
    id: 'rest',
    name: 'iterate, stats, purgeDuring',
    exports: {},
    members: { 'src/assembly/db.ts': { TtlDB: ['iterate', 'stats', 'purgeDuring'] } },
  },
  {
    id: 'sliding',
    name: 'sliding expiry (touchOnRead)',
    exports: { 'src/reads/touch.ts': ['Touches'] },
    members: {},
  },
]

const nameOf = (node, file) => node.name?.getText(file)
const exported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/**
 * `code` (of the module `fileName`) with `names` exported as empty stubs and `members` (class →
 * member names) dropped from its classes.
 * @throws Error naming what it did not find there
 */
export function cut(code, fileName, names = [], members = {}) {
  const file = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true)
  const edits = []
  const found = new Set()
  for (const node of file.statements) {
    if (ts.isClassDeclaration(node) && members[nameOf(node, file)]) {
      for (const member of node.members) {
        const key = `${nameOf(node, file)}.${nameOf(member, file)}`
        if (!members[nameOf(node, file)].includes(nameOf(member, file))) continue
        found.add(key)
        edits.push([member.getFullStart(), member.getEnd(), ''])
      }
    }
    if (!exported(node)) continue
    const declared = ts.isVariableStatement(node) ? node.declarationList.declarations.map((d) => d.name.getText(file)) : [nameOf(node, file)]
    const stubbed = declared.filter((name) => names.includes(name))
    if (stubbed.length === 0) continue
    if (stubbed.length !== declared.length) throw new Error(`${fileName}: cut all of ${declared.join(', ')} or none`)
    const stub = (name) => (ts.isClassDeclaration(node) ? `export class ${name} {}` : ts.isFunctionDeclaration(node) ? `export function ${name}() {}` : `export const ${name} = undefined`)
    stubbed.forEach((name) => found.add(name))
    edits.push([node.getStart(file), node.getEnd(), stubbed.map(stub).join('\n')])
  }
  const wanted = [...names, ...Object.entries(members).flatMap(([cls, list]) => list.map((m) => `${cls}.${m}`))]
  const missing = wanted.filter((name) => !found.has(name))
  if (missing.length > 0) throw new Error(`${fileName}: nothing to cut for ${missing.join(', ')} (the feature moved: update scripts/size-features.mjs)`)
  return edits.sort((a, b) => b[0] - a[0]).reduce((text, [start, end, insert]) => text.slice(0, start) + insert + text.slice(end), code)
}

/** esbuild plugin: the modules of `features` loaded with their cuts. */
function cutting(features) {
  const byFile = new Map()
  for (const feature of features) {
    for (const [file, names] of Object.entries(feature.exports)) {
      const entry = byFile.get(file) ?? { names: [], members: {} }
      entry.names.push(...names)
      byFile.set(file, entry)
    }
    for (const [file, classes] of Object.entries(feature.members)) {
      const entry = byFile.get(file) ?? { names: [], members: {} }
      for (const [cls, list] of Object.entries(classes)) entry.members[cls] = [...(entry.members[cls] ?? []), ...list]
      byFile.set(file, entry)
    }
  }
  const absolute = new Map([...byFile].map(([file, entry]) => [path.join(root, file), entry]))
  return {
    name: 'size-features:cut',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const entry = absolute.get(args.path)
        if (!entry) return undefined
        return { contents: cut(readFileSync(args.path, 'utf8'), args.path, entry.names, entry.members), loader: 'ts' }
      })
    },
  }
}

/** The purge worker, started by URL, is a file of its own: not in the page's bytes. */
const workerUrl = { name: 'worker-url', setup: (b) => b.onResolve({ filter: /./ }, (a) => (a.kind === 'new-url' ? { external: true, path: a.path } : undefined)) }

/** Bytes min+gzip of an app that imports `{ openTtlDB }` from `entry` (src/index.ts or src/core.ts), with `features` cut. */
async function appBytes(entry, features = []) {
  const result = await build({
    stdin: { contents: `export { openTtlDB } from './${entry}'`, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    outdir: path.join(root, 'dist-size-features'),
    plugins: [cutting(features), workerUrl],
    logLevel: 'silent',
  })
  return gzipSync(result.outputFiles[0].contents, { level: 9 }).length
}

/**
 * `{ full, core, features: [{ id, name, bytes, shared? }], allCuts }`: the two apps' bytes, what
 * each feature's cut saves of the full app, with the code it shares (`shared`: `{ with, bytes }`),
 * and what all the cuts save together.
 */
export async function featureSizes() {
  const [full, core] = await Promise.all([appBytes('src/index.ts'), appBytes('src/core.ts')])
  const features = []
  for (const feature of FEATURES) features.push({ id: feature.id, name: feature.name, bytes: full - (await appBytes('src/index.ts', [feature])) })
  for (const feature of FEATURES.filter((f) => f.shares)) {
    const row = features.find((f) => f.id === feature.id)
    const other = features.find((f) => f.id === feature.shares)
    const together = full - (await appBytes('src/index.ts', [feature, FEATURES.find((f) => f.id === feature.shares)]))
    row.shared = { with: other.name, bytes: together - other.bytes }
  }
  const allCuts = full - (await appBytes('src/index.ts', FEATURES))
  return { full, core, features, allCuts }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { full, core, features, allCuts } = await featureSizes()
  console.log(`idb-ttl app ${full} B, idb-ttl/core app ${core} B: +${full - core} B`)
  for (const f of features) {
    const shared = f.shared ? ` (${f.shared.bytes} B with what it shares with ${f.shared.with})` : ''
    console.log(`${String(f.bytes).padStart(6)} B  ${f.name}${shared}`)
  }
  console.log(`${String(allCuts).padStart(6)} B  all the cuts together; the rest: ${full - core - allCuts} B`)
}
