/**
 * A cached response's own lifetime, from the `ttl` option: what the app's function says, or what
 * the response's `Cache-Control` says when the app asks for that.
 */
import { MAX_TTL } from '../rules/ttl.js'
import type { Settings } from './options.js'

/**
 * The entry's `ttl` in seconds for `response` cached under `request`: `undefined` for the
 * default, `-1` for ever, `0` for never served from the cache, or whatever the app's function
 * returned (the store checks it, as any item's `ttl`).
 */
export function responseTtl(ttl: Settings['ttl'], request: Request, response: Response): number | undefined {
  if (ttl === undefined) return undefined
  if (ttl === 'cache-control') return cacheControlTtl(response.headers)
  return ttl({ request, response }) ?? undefined
}

/**
 * `max-age` less the response's `Age` (time it spent in shared caches on its way), clamped to the
 * longest valid `ttl`; `no-store` and `no-cache` are 0 (the cached copy may not be used without
 * asking the server); neither: `undefined`. Opaque responses show no headers: the default.
 */
function cacheControlTtl(headers: Headers): number | undefined {
  const directives = (headers.get('cache-control') ?? '').toLowerCase().split(',').map((directive) => directive.trim())
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0
  const maxAge = directives.find((directive) => directive.startsWith('max-age='))
  if (maxAge === undefined) return undefined
  const seconds = Number.parseInt(maxAge.slice('max-age='.length).replace(/"/g, ''), 10)
  if (!Number.isSafeInteger(seconds)) return undefined
  const age = Number.parseInt(headers.get('age') ?? '0', 10)
  return Math.min(MAX_TTL, Math.max(0, seconds - (Number.isSafeInteger(age) && age > 0 ? age : 0)))
}
