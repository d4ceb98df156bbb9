// Scenario 8: bytes shipped, min+gzip. Each entry is bundled with everything it imports (idb and
// comlink included) by vite's build API in library mode, minified, then gzipped at level 9;
// Dexie, localForage and idb-keyval are measured the same way, whole public API. Our main entry
// is split: the initial chunk is what a page loads before its first `get` (the entry chunk and
// the chunks it imports statically); the rest comes with a dynamic `import()` once a database
// is open, and all chunks together are reported too.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'

const repo = fileURLToPath(new URL('..', import.meta.url))
const shims = join(repo, 'bench/.tmp/size')

const MAIN_LIMIT = 6000

const peers = {
  Dexie: `export * from 'dexie'\nexport { default } from 'dexie'\n`,
  localForage: `export { default } from 'localforage'\n`,
  'idb-keyval': `export * from 'idb-keyval'\n`,
}

/**
 * The entry's initial chunks and all its chunks, min+gzip bytes (each set gzipped as one file);
 * a worker it starts is an asset, measured on its own.
 */
async function minGzipBytes(entry) {
  const result = await build({
    configFile: false,
    root: repo,
    logLevel: 'silent',
    build: {
      lib: { entry, formats: ['es'], fileName: 'entry' },
      write: false,
      // Library mode keeps ES output readable; ask rolldown for a real minification.
      rolldownOptions: { output: { minify: true } },
    },
  })
  const chunks = [result].flat().flatMap((output) => output.output).filter((file) => file.type === 'chunk')
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
  const initial = new Set()
  const visit = (chunk) => !initial.has(chunk) && (initial.add(chunk), chunk.imports.forEach((name) => visit(byName.get(name))))
  chunks.filter((chunk) => chunk.isEntry).forEach(visit)
  const gzipped = (set) => gzipSync([...set].map((chunk) => chunk.code).join(''), { level: 9 }).length
  return { initial: gzipped(initial), total: gzipped(chunks) }
}

/** The size rows of results.json. */
export async function measureSizes() {
  mkdirSync(shims, { recursive: true })
  const { initial: main, total } = await minGzipBytes(join(repo, 'src/index.ts'))
  const { total: worker } = await minGzipBytes(join(repo, 'src/background/worker/purge-worker.ts'))
  const rows = []
  for (const [name, source] of Object.entries(peers)) {
    const shim = join(shims, `${name}.js`)
    writeFileSync(shim, source)
    const { total: peer } = await minGzipBytes(shim)
    rows.push({
      id: 'size',
      ours: main,
      peer,
      peerName: `${name} (whole package)`,
      unit: 'bytes min+gzip, initial chunk before the first get',
      ratio: main / peer,
      target: `initial chunk ≤ ${MAIN_LIMIT / 1000} kB`,
      pass: main <= MAIN_LIMIT,
    })
  }
  rows.push({
    id: 'size',
    ours: total,
    peer: null,
    peerName: '—',
    unit: 'bytes min+gzip, all chunks of the main entry',
    ratio: null,
    target: 'reported',
    pass: true,
  })
  rows.push({
    id: 'size',
    ours: worker,
    peer: null,
    peerName: '—',
    unit: 'bytes min+gzip, worker entry',
    ratio: null,
    target: 'reported',
    pass: true,
  })
  return rows
}
