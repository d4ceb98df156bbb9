/**
 * A module service worker with idb-ttl stores in it (store-ops.ts, through `idb-ttl/service-worker`), answering each message on the
 * port it carries. `purgeDuring` runs `db.purgeDuring(event)` on the message event itself, and
 * answers at once (the purge goes on under the event's `waitUntil`) with how many promises the
 * library handed to `waitUntil` and whether the one it returned was among them.
 */
import { openTtlDB } from '../../../src/service-worker.js'
import { handle, opened, realm, type Reply, type Request } from './store-ops.js'
import { serviceWorker, type ExtendableMessageEvent } from './sw-scope.js'

const sw = serviceWorker<Request>()

sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()))

sw.addEventListener('message', (event) => {
  const request = event.data
  const port = event.ports[0]
  if (request.op === 'purgeDuring' && request.handOver === 'late') {
    setTimeout(() => purgeDuring(event, request), 0)
    return port.postMessage({ ok: true, value: 'handed over later', realm } satisfies Reply)
  }
  if (request.op === 'purgeDuring') return port.postMessage(purgeDuring(event, request))
  if (request.op === 'purgesDuring') return port.postMessage({ ok: true, value: settled, realm } satisfies Reply)
  event.waitUntil(handle(request, openTtlDB).then((reply) => port.postMessage(reply)))
})

/**
 * How each promise purgeDuring returned settled, in the order they did, after how many ms, with
 * which error code if it rejected, and how many items were left on the disk at that moment
 * (counted in a transaction begun then, so a later purge does not change it).
 */
const settled: { outcome: 'resolved' | 'rejected'; ms: number; left: number; code?: string }[] = []

function purgeDuring(event: ExtendableMessageEvent<Request>, request: Extract<Request, { op: 'purgeDuring' }>): Reply {
  try {
    const given: Promise<unknown>[] = []
    const waitUntil = event.waitUntil.bind(event)
    event.waitUntil = (promise) => {
      given.push(promise)
      waitUntil(promise)
    }
    const db = opened(request.name)
    const purged = request.handOver === 'budget' ? db.purgeDuring(request.budgetMs as never) : db.purgeDuring(event, request.budgetMs)
    const started = performance.now()
    const record = (outcome: 'resolved' | 'rejected', code?: string) => {
      const ms = performance.now() - started
      void db.raw.count(request.store).then((left) => settled.push({ outcome, ms, left, ...(code !== undefined && { code }) }))
    }
    purged.then(() => record('resolved'), (error: { code?: string }) => record('rejected', error?.code))
    return { ok: true, value: { waitUntilCalls: given.length, returnedPromiseAwaited: given.includes(purged) }, realm }
  } catch (error) {
    return { ok: false, error: { name: (error as Error).name, message: (error as Error).message }, realm }
  }
}
