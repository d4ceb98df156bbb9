/**
 * The purge worker's connection: an {@link AsIsConnection} whose every open is checked by a probe.
 * Apart, so that the page entries, whose connections never probe, carry none of it (issue #44).
 */
import { AsIsConnection } from './connection.js'

/**
 * WebKit loses the `versionchange` meant for a worker's connection when it comes in the moment
 * between the database opening that connection and the worker seeing it open (WebKitGTK 2.50,
 * a reopen right behind one upgrade, with a second upgrade queued): that upgrade or deletion
 * then waits for the connection, with no `blocked` event, until it closes. So once a worker's
 * connection is open, a second open request (the probe) queues behind whatever is waiting; one
 * still pending after this long waits behind an upgrade or a deletion, and the connection steps
 * aside for it. A false alarm (a slow open) costs a reopen.
 */
const PROBE_MS = 250

/** A connection in a worker: each open, once it is the current connection, is checked by a probe (see {@link PROBE_MS}). */
export class ProbedConnection extends AsIsConnection {
  protected override settle(db: IDBDatabase): IDBDatabase {
    this.probe(super.settle(db))
    return db
  }

  /** The probe, in the IndexedDB `db` came from, never creates the database, and closes as soon as it opens. */
  private probe(db: IDBDatabase): void {
    const request = this.factory!.open(this.options.name)
    const timer = setTimeout(() => this.current === db && !this.closed && this.stepAside(), PROBE_MS)
    request.onupgradeneeded = () => request.transaction!.abort()
    request.onsuccess = () => (clearTimeout(timer), request.result.close())
    request.onerror = () => clearTimeout(timer)
  }
}
