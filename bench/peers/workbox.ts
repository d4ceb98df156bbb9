/**
 * What Workbox's strategies need of a service worker, on the bench page: an event to extend, a
 * `FetchEvent` class for `Strategy.handle` to test against (a page has none), a network, and the
 * worker's clock. The clock is shared: `Date.now` for workbox-expiration, the `clock` option for
 * idb-ttl's plugin, the same function, moved by the scenario. Nothing is fetched: the network is
 * a stand-in that answers each request with a small new body.
 */

/** An `ExtendableEvent` stand-in: `done()` resolves once every promise handed to `waitUntil` settled. */
export class StandInEvent {
  private readonly pending: Promise<unknown>[] = []

  waitUntil(promise: Promise<unknown>): void {
    this.pending.push(promise)
  }

  async done(): Promise<void> {
    while (this.pending.length > 0) await Promise.allSettled(this.pending.splice(0))
  }
}

export interface WorkerStandIns {
  /** The shared clock, in epoch ms. */
  clock: () => number
  /** Moves the shared clock on by `ms`. */
  advance: (ms: number) => void
  /** How many requests reached the stand-in network. */
  fetched: () => number
  /** Puts the page's own `Date.now`, `fetch` and `FetchEvent` back. */
  restore: () => void
}

/** Installs the stand-ins on the page until `restore()`. */
export function workerStandIns(): WorkerStandIns {
  const page = globalThis as unknown as { FetchEvent?: unknown; fetch: typeof fetch }
  const realNow = Date.now
  const realFetch = page.fetch
  const hadFetchEvent = 'FetchEvent' in page
  const realFetchEvent = page.FetchEvent
  let offset = 0
  let fetched = 0
  const clock = () => realNow.call(Date) + offset
  Date.now = clock
  page.fetch = async (input: RequestInfo | URL) => new Response(`${new URL(input instanceof Request ? input.url : String(input)).pathname} #${++fetched}`)
  // Strategy.handle asks whether its argument is a FetchEvent; a page has no such class.
  if (!hadFetchEvent) page.FetchEvent = class FetchEvent {}
  return {
    clock,
    advance: (ms) => void (offset += ms),
    fetched: () => fetched,
    restore: () => {
      Date.now = realNow
      page.fetch = realFetch
      if (!hadFetchEvent) delete page.FetchEvent
      else page.FetchEvent = realFetchEvent
    },
  }
}
