/**
 * A minimal Cache Storage for Node (which has none), installed as `globalThis.caches`: responses
 * by URL, with what the plugin and the strategy stand-in call. `full` makes every `put` fail as a
 * browser's does at a full disk.
 */
class FakeCache {
  readonly responses = new Map<string, Response>()
  full = false
  /** While set, each `delete` waits for it. */
  hold: Promise<void> | undefined
  /** How many `delete` calls are waiting for {@link hold}. */
  held = 0
  /** The options of every `delete` call, in order. */
  readonly deletedWith: (CacheQueryOptions | undefined)[] = []

  async match(request: Request | string): Promise<Response | undefined> {
    return this.responses.get(urlOf(request))?.clone()
  }

  async put(request: Request | string, response: Response): Promise<void> {
    if (this.full) throw new DOMException('the disk is full', 'QuotaExceededError')
    this.responses.set(urlOf(request), response.clone())
  }

  async delete(request: Request | string, options?: CacheQueryOptions): Promise<boolean> {
    this.deletedWith.push(options)
    if (this.hold) {
      this.held++
      await this.hold
      this.held--
    }
    return this.responses.delete(urlOf(request))
  }

  /** The URLs cached, in order. */
  urls(): string[] {
    return [...this.responses.keys()]
  }
}

const urlOf = (request: Request | string) => (typeof request === 'string' ? request : request.url)

export class FakeCacheStorage {
  private readonly named = new Map<string, FakeCache>()

  async open(name: string): Promise<FakeCache> {
    return this.cache(name)
  }

  async delete(name: string): Promise<boolean> {
    return this.named.delete(name)
  }

  /** The response for `request` in cache `options.cacheName` (the only way the plugin matches). */
  async match(request: Request | string, options: CacheQueryOptions & { cacheName: string }): Promise<Response | undefined> {
    return this.cache(options.cacheName).match(request)
  }

  async has(name: string): Promise<boolean> {
    return this.named.has(name)
  }

  /** The cache `name`, created if need be, synchronously (for tests). */
  cache(name: string): FakeCache {
    let cache = this.named.get(name)
    if (!cache) this.named.set(name, (cache = new FakeCache()))
    return cache
  }
}

/** Installs a fresh stand-in as `globalThis.caches` and returns it. */
export function installCaches(): FakeCacheStorage {
  const storage = new FakeCacheStorage()
  Object.defineProperty(globalThis, 'caches', { value: storage, configurable: true, writable: true })
  return storage
}
