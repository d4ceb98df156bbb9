// A typed app using the installed package: the consumer test type-checks it, builds it with Vite
// and drives it in Chromium through `window.consumer`.
import { openTtlDB, type DBSchema, type PurgeReport, type TtlFields } from 'idb-ttl'
import type { ConsumerApi } from './api.js'

interface ConsumerDB extends DBSchema {
  sessions: { key: string; value: { id: string; user: string } & TtlFields; indexes: { byUser: string } }
}

declare global {
  interface Window {
    consumer: ConsumerApi
  }
}

async function main(): Promise<void> {
  let now = Date.now()
  const db = await openTtlDB<ConsumerDB>(`consumer-${now}`, {
    version: 1,
    clock: () => now,
    purge: { mode: 'worker', maxIntervalMs: 1000 },
    stores: { sessions: { keyPath: 'id', defaultTtl: 3600, indexes: { byUser: { keyPath: 'user' } } } },
  })
  const reports: PurgeReport[] = []
  db.onPurge((report) => reports.push(report))
  window.consumer = {
    isPurger: () => db.isPurger,
    async expireOne() {
      await db.put('sessions', { id: 'gone', user: 'u1', ttl: 1 })
      await db.put('sessions', { id: 'kept', user: 'u1' })
      now += 5_000
    },
    onDisk: () => db.raw.getAllKeys('sessions'),
    live: async () => (await db.getAllFromIndex('sessions', 'byUser', 'u1')).map((session) => session.id),
    reports: () => reports,
    inWorker: () =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL('./dedicated.ts', import.meta.url), { type: 'module' })
        worker.onmessage = (event) => resolve(event.data)
        worker.onerror = (event) => reject(new Error(event.message))
        worker.postMessage('start')
      }),
  }
  document.getElementById('status')!.textContent = 'ready'
}

void main()
