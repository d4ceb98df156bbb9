/**
 * Where a test's SDK reaches a local port (a test server's or a fault proxy's). In Node, the port
 * itself; in a test page, the dev server that serves the page, which forwards
 * `/__cosmos/<port>/…` there (test/cosmos/dev-proxy.ts): same origin, no CORS. The SDK keeps an
 * endpoint's path (its URLs are the endpoint, slashes trimmed, then the resource's path).
 */

/** Where the dev server forwards to a local port: `${COSMOS_PATH}/<port>/…`. */
export const COSMOS_PATH = '/__cosmos'

/** The endpoint that reaches `port` from here. */
export function endpointOf(port: number): string {
  return typeof window === 'undefined' ? `http://localhost:${port}` : `${location.origin}${COSMOS_PATH}/${port}`
}
