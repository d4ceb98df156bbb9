/**
 * A dedicated or shared worker with idb-ttl stores in it (store-ops.ts): each message carries a
 * request and the port to answer on. A dedicated worker hears them on its global, a shared worker
 * on each connection's port.
 */
import { handle, type Request } from './store-ops.js'

type Inbound = { data: Request; ports: readonly MessagePort[] }
const answer = (event: Inbound) => void handle(event.data).then((reply) => event.ports[0].postMessage(reply))

const scope = self as unknown as {
  onconnect?: ((event: { ports: readonly MessagePort[] }) => void) | null
  onmessage: ((event: Inbound) => void) | null
}
if ('onconnect' in scope) {
  scope.onconnect = (event) => {
    const port = event.ports[0]
    port.onmessage = answer
  }
} else {
  scope.onmessage = answer
}
