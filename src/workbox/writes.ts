/**
 * Cache writes, reads and response deletions of one URL, kept apart. A strategy puts a response
 * in the cache before `cacheDidUpdate` records its entry. A purge that deleted the URL's old entry
 * in between would find no live entry and delete the new response; a read in between (another
 * fetch) would find the new response with no entry, or with the old one. A write is therefore
 * announced before its put (`cacheKeyWillBeUsed` in mode `'write'`) and ends once the strategy
 * run is done (`handlerDidComplete`), its entry recorded or its put failed; a deletion leaves
 * alone a URL being written (the write replaces the response), a write waits for a deletion of
 * its URL under way, and a read waits for the writes of its URL under way.
 */
import type { PluginState } from './types.js'

/** The writes of one URL under way, and the end of the last of them. */
interface Writes {
  count: number
  ended: Promise<void>
  end: () => void
}

export class WriteGuard {
  private readonly writing = new Map<string, Writes>()
  private readonly deleting = new Map<string, Promise<unknown>>()

  /** A write of `url` begins, once no deletion of it is under way. */
  async begin(url: string): Promise<void> {
    while (this.deleting.has(url)) await this.deleting.get(url)!.catch(() => {})
    let writes = this.writing.get(url)
    if (!writes) {
      let end = () => {}
      const ended = new Promise<void>((resolve) => (end = resolve))
      this.writing.set(url, (writes = { count: 0, ended, end }))
    }
    writes.count++
  }

  /** A write of `url` has ended. */
  end(url: string): void {
    const writes = this.writing.get(url)
    if (!writes || --writes.count > 0) return
    this.writing.delete(url)
    writes.end()
  }

  /**
   * Resolves once no write of `url` is under way, to whether it waited for one. The writes of
   * `own` (those the reading strategy run announced itself) are not waited for: they end only
   * after the run's response.
   */
  async written(url: string, own: ReadonlySet<string> | undefined): Promise<boolean> {
    let waited = false
    for (let writes; !own?.has(url) && (writes = this.writing.get(url)); waited = true) await writes.ended
    return waited
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
