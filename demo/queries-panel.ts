/**
 * Section 8: TanStack Query's per-query persister over a TTL store (`idb-ttl/tanstack`). A query
 * fetched once comes back from IndexedDB after a reload, until the store's default says it
 * expired; then it is fetched again, and the purge deletes the old entry with no `persisterGc`.
 * The section's database runs on a clock of its own that *Jump ahead* moves (kept across reloads),
 * so the expiry can be seen without waiting for it.
 */
import { QueryClient } from '@tanstack/query-core'
import { experimental_createQueryPersister } from '@tanstack/query-persist-client-core'
import { openTtlDB, type TtlDB } from '../src/index.js'
import { ttlStorage } from '../src/tanstack/index.js'
import { formatSeconds, h, setText } from './dom.js'

export const QUERIES_TTL = 30
const YEAR_MS = 365 * 86_400_000
/** How far this section's clock runs ahead of the real one, in ms, kept across reloads. */
const AHEAD_KEY = 'idb-ttl-demo:queries:ahead'

/** Where the persister keeps the query: its prefix and the query's hash. */
const STORAGE_KEY = 'tanstack-query-["server-time"]'

const ahead = () => Number(localStorage.getItem(AHEAD_KEY)) || 0
const clock = () => Date.now() + ahead()

/** The section's own database (another name than the demo's: its clock is another). */
export function openQueriesDB(dbName: string): Promise<TtlDB<any>> {
  return openTtlDB(`${dbName}-queries`, { version: 1, clock, stores: { queries: { defaultTtl: QUERIES_TTL } } })
}

export function mountQueries(root: HTMLElement, db: TtlDB<any>): void {
  const storage = ttlStorage(db, 'queries')
  // The persister's own maxAge is a year: here the store's defaultTtl alone decides.
  const persister = experimental_createQueryPersister({ storage, maxAge: YEAR_MS })
  const client = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, staleTime: Infinity } } })
  let fetches = 0

  const source = h('p', { 'data-testid': 'queries-source' })
  const entries = h('ul', { class: 'queries-entries', 'data-testid': 'queries-entries' })
  const refetch = h('button', { type: 'button', 'data-testid': 'queries-refetch' }, 'Fetch again (forget the cache)')
  const jump = h('button', { type: 'button', 'data-testid': 'queries-jump' }, `Jump ${QUERIES_TTL} s ahead`)
  const clockLine = h('p', { class: 'hint', 'data-testid': 'queries-clock' })
  root.replaceChildren(h('div', { class: 'queries-panel' }, source, h('div', { class: 'queries-tools' }, refetch, jump), entries, clockLine))

  async function load(): Promise<void> {
    const before = fetches
    const data = await client.fetchQuery({
      queryKey: ['server-time'],
      queryFn: async () => {
        fetches++
        await new Promise((resolve) => setTimeout(resolve, 300)) // a network round trip
        return { fetchedAt: new Date(clock()).toISOString() }
      },
    })
    setText(source, `${fetches > before ? 'Fetched from the network' : 'Restored from IndexedDB'}: the server time was ${data.fetchedAt}`)
    source.dataset.source = fetches > before ? 'network' : 'restored'
  }

  async function showEntries(): Promise<void> {
    const live = await storage.entries()
    const rows = await Promise.all(live.map(async ([key]) => [key, await db.expiresAt('queries', key)] as const))
    entries.replaceChildren(...rows.map(([key, at]) => h('li', { 'data-expires-at': String(at ?? '') }, key, ' ', h('span', { class: 'hint' }, at === undefined ? '' : `expires in ${formatSeconds(at - clock())}`))))
    if (rows.length === 0) entries.append(h('li', { class: 'hint' }, 'no live entry'))
    setText(clockLine, ahead() ? `This section's clock runs ${formatSeconds(ahead())} ahead of yours.` : "This section's clock is yours.")
  }

  refetch.addEventListener('click', () => {
    client.clear()
    void storage.removeItem(STORAGE_KEY).then(load).then(showEntries)
  })
  jump.addEventListener('click', () => {
    localStorage.setItem(AHEAD_KEY, String(ahead() + QUERIES_TTL * 1000))
    client.clear()
    void load().then(showEntries)
  })
  void load().then(showEntries)
  setInterval(() => void showEntries(), 1000)
}
