// Must NOT type-check: each line marked ✗ is one error tsc has to report, and no other line may
// have one. The consumer test asserts both.
import { openTtlDB, type DBSchema, type TtlFields } from 'idb-ttl'

interface ConsumerDB extends DBSchema {
  sessions: { key: string; value: { id: string; user: string } & TtlFields }
}

export async function wrong(): Promise<void> {
  const db = await openTtlDB<ConsumerDB>('app', { version: 1, stores: { sessions: { keyPath: 'id', defaultTtl: 60 } } })
  await db.put('sesions', { id: 'a', user: 'u1' }) // ✗ a store that is not declared
  await db.put('sessions', { id: 'b', user: 'u1', ttl: '60' }) // ✗ a ttl given as a string
  await db.put('sessions', { id: 'c', user: 'u1', ttl: 60 })
}
