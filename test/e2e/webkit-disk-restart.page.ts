// The page of webkit-disk-restart.test.ts, run in MiniBrowser with IndexedDB on disk. Nothing
// drives it: it reads what to do from its URL (?phase=write|read&now=<epoch ms>&db=<name>), does
// it, and POSTs what it found to /report on the server that served it.
import { openTtlDB } from '../../src/index.js'

export const COUNT = 200

/** Item i: a quarter with a 60 s ttl, a quarter with 1 h, half with none (the store's -1: never). */
export function ttlOf(i: number): number | undefined {
  return i % 4 === 0 ? 60 : i % 4 === 1 ? 3600 : undefined
}

export function itemOf(i: number) {
  const ttl = ttlOf(i)
  return { id: i, text: `item ${i}`, list: [i, i * 2, { nested: `n${i}` }], ...(ttl !== undefined && { ttl }) }
}

async function run(params: URLSearchParams) {
  const phase = params.get('phase')
  const now = Number(params.get('now'))
  const name = params.get('db') ?? ''
  const db = await openTtlDB(name, {
    version: 1,
    clock: () => now,
    purge: { mode: 'off' },
    stores: { items: { keyPath: 'id', defaultTtl: -1 } },
  })
  try {
    if (phase === 'write') {
      await db.putAll('items', Array.from({ length: COUNT }, (_, i) => itemOf(i)))
      return { phase, items: await db.getAll('items'), raw: await db.raw.count('items') }
    }
    const expiredIds = Array.from({ length: COUNT }, (_, i) => i).filter((i) => ttlOf(i) === 60)
    const expiredGets = await Promise.all(expiredIds.map((id) => db.get('items', id)))
    const items = await db.getAll('items')
    const count = await db.count('items')
    const rawBefore = await db.raw.count('items')
    const purged = await db.purgeExpired('items')
    const rawAfter = await db.raw.count('items')
    const rawKeys = await db.raw.getAllKeys('items')
    return { phase, items, count, expiredGets: expiredGets.map((item) => item ?? null), rawBefore, purged, rawAfter, rawKeys }
  } finally {
    db.close()
  }
}

if (typeof document !== 'undefined' && new URLSearchParams(location.search).has('phase')) {
  const params = new URLSearchParams(location.search)
  const body = await run(params).catch((error: unknown) => ({ phase: params.get('phase'), error: String((error as Error)?.stack ?? error) }))
  await fetch('/report', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}
