/**
 * What the plugin's Node tests share: a fresh Cache Storage stand-in per test (fake-caches.ts),
 * and plugins under a clock of their own, each with a cache of its own, deleted after the test.
 */
import { afterEach, beforeEach } from 'vitest'
import { TtlExpirationPlugin, type TtlExpirationPluginOptions } from '../../src/workbox/index.js'
import { manualClock, uniqueName } from '../helpers.js'
import { T0 } from '../semantics/support.js'
import { installCaches, type FakeCacheStorage } from './fake-caches.js'
import { cacheFirst, network } from './strategy.js'

export const API = 'https://app.test/api/'

let current: FakeCacheStorage
const plugins: TtlExpirationPlugin[] = []

beforeEach(() => void (current = installCaches()))
afterEach(async () => {
  for (const plugin of plugins.splice(0)) await plugin.deleteCacheAndMetadata()
})

/** The Cache Storage stand-in of the running test. */
export const storage = () => current

/** A plugin with `options` under a clock of its own, a cache of its own, and a network that counts. */
export function setup(options: TtlExpirationPluginOptions = {}, headersFor?: (url: string) => HeadersInit) {
  const clock = manualClock(T0)
  const plugin = new TtlExpirationPlugin({ ...options, clock })
  plugins.push(plugin)
  const cacheName = uniqueName('api')
  const fetch = network(headersFor)
  const get = (path: string) => cacheFirst(plugin, cacheName, fetch, API + path)
  return { plugin, clock, cacheName, fetch, get, cached: () => current.cache(cacheName).urls() }
}
