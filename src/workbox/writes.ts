/**
 * Cache writes and response deletions of one URL, kept apart. A strategy puts a response in the
 * cache before `cacheDidUpdate` records its entry, so a purge that deleted the URL's old entry in
 * between would find no live entry and delete the new response. A write is therefore announced
 * before its put (`cacheKeyWillBeUsed` in mode `'write'`) and ends once the strategy run is done
 * (`handlerDidComplete`), its entry recorded or its put failed; a deletion leaves alone a URL being written (the
 * write replaces the response), and a write waits for a deletion of its URL under way.
 */
import type { PluginState } from './types.js'

export class WriteGuard {
  private readonly writing = new Map<string, number>()
  private readonly deleting = new Map<string, Promise<unknown>>()

  /** A write of `url` begins, once no deletion of it is under way. */
  async begin(url: string): Promise<void> {
    while (this.deleting.has(url)) await this.deleting.get(url)!.catch(() => {})
    this.writing.set(url, (this.writing.get(url) ?? 0) + 1)
  }

  /** A write of `url` has ended. */
  end(url: string): void {
    const left = (this.writing.get(url) ?? 1) - 1
    if (left > 0) this.writing.set(url, left)
    else this.writing.delete(url)
  }

  /** Runs `deletion` over the URLs of `urls` not being written, which no write begins meanwhile. */
  async delete(urls: readonly string[], deletion: (urls: readonly string[]) => Promise<void>): Promise<void> {
    const free = urls.filter((url) => !this.writing.has(url))
    const done = deletion(free)
    for (const url of free) this.deleting.set(url, done)
    try {
      await done
    } finally {
      for (const url of free) if (this.deleting.get(url) === done) this.deleting.delete(url)
    }
  }
}

/** Where a strategy run's state for this plugin keeps the writes it announced. */
const WRITES = 'idb-ttl:writes'

/** The writes announced in `state`, the plugin's state for one strategy run. */
export function writesOf(state: PluginState): Set<string> {
  return ((state[WRITES] as Set<string> | undefined) ??= new Set())
}
