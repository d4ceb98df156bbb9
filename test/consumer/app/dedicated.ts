// A dedicated worker of the consumer app that uses the installed package (SPEC §10): it opens a
// store, writes an item that dies at once by its clock, and answers the page with the keys left on
// disk once the background purge (its own purge worker, started from this worker) deleted it.
import { openTtlDB } from 'idb-ttl'

const scope = self as unknown as { postMessage(message: unknown): void; onmessage: ((event: { data: unknown }) => void) | null }

scope.onmessage = async () => {
  let now = Date.now()
  const db = await openTtlDB(`dedicated-${now}`, { version: 1, clock: () => now, purge: { mode: 'worker', maxIntervalMs: 1000 }, stores: { s: { keyPath: 'id', defaultTtl: 3600 } } })
  let deleted = 0
  db.onPurge((report) => (deleted += report.deleted))
  await db.put('s', { id: 'gone', ttl: 1 })
  await db.put('s', { id: 'kept' })
  now += 5_000
  const started = Date.now()
  while (deleted < 1 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 100))
  scope.postMessage({ isPurger: db.isPurger, deleted, onDisk: await db.raw.getAllKeys('s') })
}
