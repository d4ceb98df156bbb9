/**
 * Section 9: a React island over `idb-ttl/react`. Headlines fetched from the demo's API go to a
 * cache store (`keepExpired`) in a database of its own, opened in an evictable Storage Bucket:
 * `useLive` lists the live ones, each leaving at its expiry instant; offline, `useStale` shows the
 * last-known ones, marked stale. Written with `createElement`, so the demo needs no JSX build.
 */
import { createElement as e, useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { openTtlDB, type TtlDB } from '../src/index.js'
import { useLive, useStale } from '../src/react.js'

export const HEADLINES = 'headlines'
/** Each headline lives this long; an expired one is kept an hour for offline reading. */
export const HEADLINE_TTL = 8
const KEEP_EXPIRED = 3600

interface Headline {
  id: string
  text: string
}

/** The cache database: re-fetchable, so in a bucket the browser may evict first (docs/storage.md). */
export function openHeadlinesDB(dbName: string): Promise<TtlDB<unknown>> {
  return openTtlDB(`${dbName}-headlines`, {
    version: 1,
    stores: { [HEADLINES]: { keyPath: 'id', defaultTtl: HEADLINE_TTL, keepExpired: KEEP_EXPIRED } },
    bucket: { name: 'idb-ttl-demo-cache', persisted: false, durability: 'relaxed' },
  })
}

/** Fetches the API's quotes and stores them as headlines, each with the store's default ttl. */
async function fetchHeadlines(db: TtlDB<unknown>): Promise<void> {
  const body = (await (await fetch('./api/quotes')).json()) as { n: number; quotes: string[] }
  await db.putAll(HEADLINES, body.quotes.map((text, i) => ({ id: `#${body.n}.${i + 1}`, text })))
}

function useOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine)
  useEffect(() => {
    const changed = () => setOnline(navigator.onLine)
    addEventListener('online', changed)
    addEventListener('offline', changed)
    return () => {
      removeEventListener('online', changed)
      removeEventListener('offline', changed)
    }
  }, [])
  return online
}

function Headlines({ db }: { db: TtlDB<unknown> }) {
  const live = useLive(db, HEADLINES) as Headline[] | undefined
  const stale = useStale(db, HEADLINES)
  const online = useOnline()
  const [error, setError] = useState('')
  const fetchNow = () => fetchHeadlines(db).then(() => setError(''), (failure: Error) => setError(`The fetch failed (${failure.message}).`))
  return e(
    'div',
    { className: 'headlines', 'data-testid': 'headlines', 'data-online': String(online) },
    e('button', { type: 'button', onClick: fetchNow, 'data-testid': 'headlines-fetch' }, `Fetch headlines (ttl ${HEADLINE_TTL} s)`),
    error && e('p', { className: 'hint' }, error),
    e('h3', null, 'Live: useLive(db, "headlines")'),
    live === undefined ? e('p', { className: 'hint' }, 'loading…') : e('ul', { 'data-testid': 'headlines-live' }, live.map((item) => e('li', { key: item.id, 'data-id': item.id }, `${item.id} ${item.text}`))),
    online
      ? e('p', { className: 'hint', 'data-testid': 'headlines-stale-hint' }, `Offline, the expired ones show here, marked stale (${stale?.length ?? 0} kept now). Cut the network to see them.`)
      : e(
          'div',
          { className: 'stale', 'data-testid': 'headlines-offline' },
          e('h3', null, 'Offline: last known, useStale(db, "headlines")'),
          e(
            'ul',
            { 'data-testid': 'headlines-stale' },
            (stale ?? []).map((entry) => {
              const item = entry.value as Headline
              return e('li', { key: String(entry.key), 'data-id': item.id }, e('mark', null, 'stale'), ` ${item.id} ${item.text} (expired ${new Date(entry.expiredAt).toLocaleTimeString()})`)
            }),
          ),
        ),
  )
}

/** Renders the island into `root`, once the database is open. */
export function mountHeadlines(root: HTMLElement, db: TtlDB<unknown>): void {
  createRoot(root).render(e(Headlines, { db }))
}
