// The Cosmos DB server the bench page's cosmos-* rows run against: `@vercel/cosmosdb-server`
// (the one the mirror's tests use) in this process, answering the page across origins as an
// account with CORS does, so that the page's SDK reaches it directly, with no proxy in between.
// Keep-alive is on (its default closes every connection), as a real account's is.
import { createHttpServer } from '@vercel/cosmosdb-server'

/** Starts the server on 127.0.0.1; resolves to its endpoint and how to stop it. */
export async function startCosmosServer() {
  const server = createHttpServer({ keepAlive: true })
  const [cosmos] = server.listeners('request')
  server.removeAllListeners('request')
  server.on('request', (req, res) => {
    res.setHeader('access-control-allow-origin', '*')
    res.setHeader('access-control-expose-headers', '*')
    if (req.method !== 'OPTIONS') return cosmos.call(server, req, res)
    // `*` would not cover `authorization`: the preflight is granted exactly what it asks.
    res.writeHead(204, {
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
      'access-control-max-age': '600',
    })
    res.end()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  }
}
