/**
 * The purge worker's entry. It opens its own connection to the page's database (never creating
 * or upgrading it), which steps aside on `versionchange` like every connection of the library.
 */
import { expose } from 'comlink'
import { UserActivity } from '../courtesy.js'
import type { AsIsConnection } from '../../layout/connection.js'
import { ProbedConnection } from '../../layout/probed-connection.js'
import { openIn } from '../../platform/bucket.js'
import { abortQuietly } from '../../platform/request.js'
import { READY, type PurgeConfig, type WorkerApi } from './api.js'
import { createPurgeApi } from './purge-api.js'

/**
 * The connection, with each transaction opened on it followed until it ends. `close()` closes
 * the connection, aborts the transactions still running (a purge batch rolls back: its dead items
 * are deleted again later) and resolves once they have all ended, so that the page terminates a
 * worker with no transaction open: WebKitGTK may keep a terminated worker's read-write
 * transaction open for good, and every request on its stores, in every tab, waits behind it.
 * `committed()` counts the transactions that committed: the page's watchdog tells a worker that
 * is getting on with a long purge from one that is stuck by whether it moved.
 */
function tracked(connection: AsIsConnection): {
  connect: () => Promise<IDBDatabase>
  close: () => Promise<void>
  committed: () => number
} {
  // Each open transaction with the promise of its end, made when it opened (not when asked).
  const open = new Map<IDBTransaction, Promise<void>>()
  const followed = new WeakSet<IDBDatabase>()
  let committed = 0
  const ended = (tx: IDBTransaction) =>
    new Promise<void>((resolve) => {
      tx.addEventListener('complete', () => {
        committed++
        resolve()
      })
      tx.addEventListener('abort', () => resolve())
    })
  return {
    async connect() {
      const db = await connection.native()
      if (!followed.has(db)) {
        followed.add(db)
        const transaction = db.transaction.bind(db)
        db.transaction = (...args: Parameters<IDBDatabase['transaction']>) => {
          const tx = transaction(...args)
          open.set(tx, ended(tx).then(() => void open.delete(tx)))
          return tx
        }
      }
      return db
    },
    async close() {
      connection.close()
      await Promise.all(
        [...open].map(([tx, end]) => {
          abortQuietly(tx)
          return end
        }),
      )
    },
    committed: () => committed,
  }
}

// The script loaded and runs: from now on an `error` is a crash, not a worker that cannot start.
self.postMessage(READY)

/**
 * The first message carries the config and a port on which the page signals its own requests;
 * every later message is a Comlink call.
 */
self.addEventListener(
  'message',
  (event: MessageEvent<PurgeConfig>) => {
    const config = event.data
    const activity = new UserActivity()
    event.ports[0].onmessage = () => activity.note()
    const connection = new ProbedConnection({ name: config.name, stores: config.stores, clock: Date.now })
    // The database's bucket, as its page opened it, before the first connection.
    const placed = openIn(config.name, config.bucket === undefined ? undefined : { name: config.bucket })
    // A bucket that cannot be opened fails each purge that connects, which reports it.
    placed.catch(() => {})
    const { connect: connectPlaced, close, committed } = tracked(connection)
    const connect = () => placed.then(connectPlaced)
    expose({ ...createPurgeApi(config, connect, close, activity), ping: async () => committed() } satisfies WorkerApi)
  },
  { once: true },
)
