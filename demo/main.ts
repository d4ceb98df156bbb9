/**
 * The demo page: wires the first screen's tour (the life of one item), the live stores, the expiry
 * event logs of two frames, the purge log, the chart and the load tools, and the rules
 * playground, the service worker's panel, a Cosmos DB container beside its offline mirror, and
 * TanStack Query's persisted queries, and a React island over a cache in a Storage Bucket. With
 * `?view=second` it is the compact second frame instead.
 */
import { bulkControl } from './bulk.js'
import { CountChart } from './chart.js'
import { mountCosmos } from './cosmos-panel.js'
import { DB_VERSION, openDemoDB, readParams, resetDemo, STORES, TOUR_STORE, TOUR_TTL, type DemoDB } from './database.js'
import { h, setText } from './dom.js'
import { ExpireLog } from './expire-log.js'
import { fillControl } from './fill.js'
import { mountHeadlines, openHeadlinesDB } from './headlines.js'
import { mountFrameMeter, type FrameMeter } from './frame-meter.js'
import { mountOffline } from './offline.js'
import { mountPlayground } from './playground.js'
import { PurgeLog } from './purge-log.js'
import { mountQueries, openQueriesDB } from './queries-panel.js'
import { mountSecondFrame } from './second-frame.js'
import { mountStorage } from './storage-panel.js'
import { StorePanel } from './store-panel.js'
import { Tour } from './tour.js'

const STATS_MS = 1000
/** After the second frame has loaded, the page's own start-up work is over: the meter starts. */
const SETTLE_MS = 1000
/** … or this long after the database opened, whatever the second frame does. */
const METER_LATEST_MS = 10_000

const $ = (id: string) => document.getElementById(id) as HTMLElement
const params = readParams(location.search)
const status = $('status')

if (params.second) mountSecondFrame(params)
else {
  const tour = new Tour()
  $('tour').replaceChildren(tour.el)
  const declared = `{ version: ${DB_VERSION}, stores: { ${TOUR_STORE}: { keyPath: 'id', defaultTtl: ${TOUR_TTL} }, … } }`
  setText($('tour-open'), `const db = await openTtlDB('${params.dbName}', ${declared})`)
  // Frame times count from when the page has settled (see `start`), not from its own loading.
  const meter = mountFrameMeter($('meter'))
  mountPlayground($('playground'))
  mountOffline($('offline'))
  openQueriesDB(params.dbName).then((queries) => mountQueries($('queries'), queries), (error: Error) => setText($('queries'), `Could not open the database: ${error.name}: ${error.message}`))
  setText(status, `Opening IndexedDB database "${params.dbName}"…`)
  openDemoDB(params).then((db) => start(db, tour, meter), (error: Error) => {
    status.dataset.state = 'error'
    setText(status, `Could not open the database: ${error.name}: ${error.message}`)
  })
}

/** The second frame, opened once this page holds its connection (and so is first in line to purge). */
function secondFrame(): HTMLIFrameElement {
  const url = new URL(location.href)
  url.searchParams.set('view', 'second')
  return h('iframe', { src: url.href, class: 'second-frame', title: 'second frame of the demo', 'data-testid': 'second-frame' })
}

function start(db: DemoDB, tour: Tour, meter: FrameMeter): void {
  const cadence = params.purge.maxIntervalMs ? `, maxIntervalMs ${params.purge.maxIntervalMs}` : ''
  const ready = `IndexedDB database "${params.dbName}" · purge: Web Worker${cadence} · state survives a reload`
  setText(status, ready)
  status.dataset.state = 'ready'

  const log = new PurgeLog()
  const chart = new CountChart()
  const hooks = (name: string) => ({ changed: refresh, storage: localStorage, storageKey: `idb-ttl-demo:${params.dbName}:${name}:default` })
  const panels = STORES.map((info) => new StorePanel(db, info, hooks(info.name)))
  $('stores').replaceChildren(...panels.map((p) => p.el))
  // No polling: each panel's live query emits after every change, in any tab, and at the second
  // an item of its column expires; purges and evictions arrive through onPurge.
  const unfollow = panels.map((p) => p.follow(() => void refresh()))
  $('load').replaceChildren(bulkControl(db, refresh), fillControl(db, params.fill, refresh))
  $('purge').replaceChildren(log.el, chart.el)
  tour.start(db)
  const cosmos = mountCosmos($('cosmos'), db)
  openHeadlinesDB(params.dbName).then(
    (headlines) => {
      mountHeadlines($('headlines'), headlines)
      mountStorage($('storage'), [
        { label: 'headlines (cache, evictable)', db: headlines },
        { label: `${params.dbName} (the mirror of section 7)`, db },
      ])
    },
    (error: Error) => setText($('headlines'), `Could not open the headlines database: ${error.name}: ${error.message}`),
  )

  const expired = new ExpireLog('This page: db.onExpire')
  db.onExpire((event) => {
    expired.add(event)
    if (event.reason === 'evicted') panels.find((p) => p.info.name === event.store)?.evicted(event.items.map((item) => item.key))
  })
  const second = secondFrame()
  // The second frame loads a copy of the whole demo: the meter starts once that is done.
  second.addEventListener('load', () => setTimeout(() => meter.start(), SETTLE_MS), { once: true })
  setTimeout(() => meter.start(), METER_LATEST_MS)
  $('events').replaceChildren(expired.el, second)

  const pollStats = () => Promise.all(panels.map((p) => p.refreshStats())).catch(() => {
    // The next poll tries again; a failing read shows in the status line through refresh().
  })
  void pollStats()
  const statsTimer = setInterval(pollStats, STATS_MS)

  db.onPurge((report) => {
    log.add(report)
    refresh()
  })

  let running = false
  let again = false
  /** Set by reset: no refresh starts after it, and reset waits for the one in flight. */
  let stopped = false
  let inFlight: Promise<void> = Promise.resolve()
  function refresh(): Promise<void> {
    if (stopped) return Promise.resolve()
    if (running) {
      again = true
      return Promise.resolve()
    }
    running = true
    inFlight = refreshOnce()
    return inFlight
  }
  async function refreshOnce(): Promise<void> {
    try {
      await Promise.all(panels.map((p) => p.refresh()))
      const live = panels.reduce((n, p) => n + p.liveCount, 0)
      const disk = panels.reduce((n, p) => n + p.diskCount, 0)
      chart.push(live, disk)
      log.expiredOnDisk(disk - live)
      log.purger(db.isPurger)
      if (status.dataset.state === 'stale') {
        status.dataset.state = 'ready'
        setText(status, ready)
      }
    } catch (error) {
      status.dataset.state = 'stale'
      setText(status, `Reading failed: ${(error as Error).name}: ${(error as Error).message}`)
    } finally {
      running = false
    }
    if (stopped) return
    if (again) {
      again = false
      void refresh()
    }
  }
  void refresh()

  // Bars move a few pixels a second: five repaints a second look as good as sixty and leave the
  // frames to whatever else is going on (software rendering makes every repaint count).
  let painted = 0
  const frame = (t: number) => {
    if (t - painted >= 200) {
      painted = t
      const now = Date.now()
      tour.frame(now)
      for (const p of panels) p.frame(now)
      cosmos.frame(now)
    }
    requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)

  const reset = $('reset') as HTMLButtonElement
  reset.disabled = false
  reset.addEventListener('click', async () => {
    reset.disabled = true
    stopped = true
    unfollow.forEach((off) => off())
    clearInterval(statsTimer)
    tour.stop()
    cosmos.stop()
    await inFlight
    second.remove()
    setText(status, 'Deleting the database…')
    for (const p of panels) localStorage.removeItem(hooks(p.info.name).storageKey)
    await resetDemo(db, params.dbName, () => setText(status, 'Deleting the database: waiting for other tabs of this demo to close it…'))
    location.reload()
  })
}

