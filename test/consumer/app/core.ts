// The smallest app issue #33 sizes: one TTL store through `idb-ttl/core`, with get, put, delete,
// getAll, count and the background purge (in its worker). The consumer test bundles it alone and
// weighs it against the core's budget, and its first load in a Vite build (issue #44).
import { openTtlDB, TtlError, type TtlCoreDB } from 'idb-ttl/core'

interface Session {
  id: string
  user: string
  ttl?: number
}

export async function sessions(): Promise<TtlCoreDB> {
  const db = await openTtlDB('core-app', { version: 1, stores: { sessions: { keyPath: 'id', defaultTtl: 3600 } } })
  const session: Session = { id: 'a', user: 'u1', ttl: 60 }
  await db.put('sessions', session)
  const found = await db.get('sessions', 'a')
  if (found && found._ts > 0) await db.delete('sessions', 'a')
  console.log(await db.getAll('sessions'), await db.count('sessions'))
  return db
}

sessions().catch((error: unknown) => console.error(error instanceof TtlError ? error.code : error))
