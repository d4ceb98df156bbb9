// Scenario 8: bytes shipped, min+gzip. Each entry is bundled with everything it imports (idb and
// comlink included) by vite's build API in library mode, minified, then gzipped at level 9;
// Dexie, localForage and idb-keyval are measured the same way, whole public API.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'

const repo = fileURLToPath(new URL('..', import.meta.url))
const shims = join(repo, 'bench/.tmp/size')

const MAIN_LIMIT = 5000
const WORKER_LIMIT = 4000

const peers = {
  Dexie: `export * from 'dexie'\nexport { default } from 'dexie'\n`,
  localForage: `export { default } from 'localforage'\n`,
  'idb-keyval': `export * from 'idb-keyval'\n`,
}

/** The entry's own chunk, min+gzip bytes; a worker it starts is an asset, measured on its own. */
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
  return gzipSync(chunks.map((chunk) => chunk.code).join(''), { level: 9 }).length
}

/** The size rows of results.json. */
export async function measureSizes() {
  mkdirSync(shims, { recursive: true })
  const main = await minGzipBytes(join(repo, 'src/index.ts'))
  const worker = await minGzipBytes(join(repo, 'src/worker/purge-worker.ts'))
  const rows = []
  for (const [name, source] of Object.entries(peers)) {
    const shim = join(shims, `${name}.js`)
    writeFileSync(shim, source)
    const peer = await minGzipBytes(shim)
    rows.push({
      id: 'size',
      ours: main,
      peer,
      peerName: `${name} (whole package)`,
      unit: 'bytes min+gzip, main entry',
      ratio: main / peer,
      target: `main entry ≤ ${MAIN_LIMIT / 1000} kB`,
      pass: main <= MAIN_LIMIT,
    })
  }
  rows.push({
    id: 'size',
    ours: worker,
    peer: null,
    peerName: '—',
    unit: 'bytes min+gzip, worker entry',
    ratio: null,
    target: `worker entry ≤ ${WORKER_LIMIT / 1000} kB`,
    pass: worker <= WORKER_LIMIT,
  })
  return rows
}
