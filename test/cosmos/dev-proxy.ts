/**
 * A Vite plugin for the browser projects: the dev server that serves the test page forwards
 * `/__cosmos/<port>/<path>` to `http://localhost:<port>/<path>` (a test server or a fault proxy
 * of test/cosmos/control.ts), so that the page's SDK reaches them from its own origin, with no
 * CORS. A port that refuses the connection drops the page's request unanswered: the page sees a
 * network error, as it would offline, where an answer such as 502 would read as a server error.
 */
import type { Plugin } from 'vite'
import { COSMOS_PATH } from './endpoint.js'
import { forward } from './listen.js'

export function cosmosDevProxy(): Plugin {
  return {
    name: 'idb-ttl:cosmos-dev-proxy',
    configureServer(server) {
      server.middlewares.use(COSMOS_PATH, (req, res) => {
        const [, port, path] = /^\/(\d+)(\/.*)?$/.exec(req.url ?? '') ?? []
        if (!port) return void res.writeHead(404).end(`not a ${COSMOS_PATH}/<port>/ path: ${req.url}`)
        forward(req, res, Number(port), path ?? '/')
      })
    },
  }
}
