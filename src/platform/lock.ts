/**
 * Web Locks as flags other tabs can see: a lock held until released says "this connection
 * listens", "owes touches" or "purges", and `navigator.locks.query()` reads those flags across
 * the origin. Where Web Locks are missing (`undefined`), callers fall back to what their realm
 * knows.
 */

/**
 * A random id for a lock name: `crypto.randomUUID()` where there is one, 16 random bytes in hex
 * otherwise. `randomUUID` is missing outside secure contexts (a page served over plain http from a
 * LAN address) and before Chrome 92, Firefox 95 and Safari 15.4; `getRandomValues` is not.
 */
export function uniqueId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** The origin's lock manager, or `undefined` where there is none. */
export function webLocks(): LockManager | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.locks
}

/** A lock asked for and held until released. */
export interface HeldLock {
  /** Resolves once the lock is held (or will never be: released before, or refused by Web Locks for good). */
  granted: Promise<void>
  /** Lets the lock go, or stops waiting for it. */
  release(): void
  /** Resolves once the lock is not held, nor asked for, any more: released, refused, or taken by a request that steals it. */
  ended: Promise<void>
}

/** The first wait before a lock whose callback the browser would not run is asked for again; it doubles with each refusal in a row. */
const RETRY_MS = 10
/** The longest wait between two requests for one lock. */
const MAX_RETRY_MS = 1000

/**
 * Asks for the Web Lock `name` and holds it until {@link HeldLock.release}; `undefined` where
 * there are no Web Locks. `onGranted` runs once it is held; returning `false` lets it go at once.
 * `mode` `'shared'`: held beside other shared holders, never beside an exclusive one.
 *
 * A grant can come to nothing: Chromium does not run the callback of a lock granted while the
 * page is inside `window.open` (a synchronous call that opens the window); it rejects the request
 * with a plain `Error` ("The provided callback is no longer runnable") and passes the lock on.
 * Such a lock is asked for again, until held or released: given up, it would leave the page
 * without its purge, or its listeners unseen by other tabs, for good. Web Locks' own refusals
 * are `DOMException`s (`SecurityError` in an opaque origin, `InvalidStateError` in a document no
 * longer active, `AbortError` once released) and final.
 */
export function holdLock(name: string, onGranted?: () => boolean | void, mode: LockMode = 'exclusive'): HeldLock | undefined {
  const locks = webLocks()
  if (!locks) return undefined
  const waiting = new AbortController()
  let release!: () => void
  let granted!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const held = new Promise<void>((resolve) => (granted = resolve))
  // Web Locks' own refusal (its `AbortError` once released among them) ends the wait for a grant.
  const ended = withLock(
    locks,
    name,
    async () => {
      granted()
      if (onGranted?.() === false) return
      await released
    },
    { signal: waiting.signal, mode },
  ).then(granted, granted)
  return {
    granted: held,
    ended,
    release() {
      waiting.abort()
      release()
    },
  }
}

/**
 * Runs `run` holding the Web Lock `name` and resolves to what it returns; a grant that came to
 * nothing (see {@link holdLock}) is asked for again after a wait. `options` are Web Locks' own
 * (`mode`, `signal`, `steal`). Web Locks' own refusals (an abort by `signal` among them), and
 * `run`'s failures, reject.
 */
export async function withLock<T>(locks: LockManager, name: string, run: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  for (let retryMs = RETRY_MS; ; retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)) {
    let ran = false
    try {
      return (await locks.request(name, options, () => ((ran = true), run()))) as T
    } catch (error) {
      if (ran || error instanceof DOMException) throw error
      // After a wait, not at once: a refusal that lasts costs a request per wait, not a busy loop.
      await new Promise((resolve) => setTimeout(resolve, retryMs))
    }
  }
}

/** The names, after `prefix`, of the locks held or asked for (a request may not be granted yet). */
export async function lockNames(prefix: string): Promise<string[]> {
  const locks = webLocks()
  if (!locks) return []
  const { held = [], pending = [] } = await locks.query()
  return [...held, ...pending].map((lock) => lock.name ?? '').filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length))
}
