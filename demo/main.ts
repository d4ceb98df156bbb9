/**
 * The demo page: wires the playground, the live stores, the expiry event logs of two frames, the
 * purge log and the chart. With `?view=second` it is the compact second frame instead.
 */
import { bulkControl } from './bulk.js'
import { CountChart } from './chart.js'
import { openDemoDB, readParams, resetDemo, STORES, type DemoDB, type StoreInfo } from './database.js'
import { h, setText } from './dom.js'
import { ExpireLog } from './expire-log.js'
import { fillControl } from './fill.js'
import { mountFrameMeter } from './frame-meter.js'
import { mountPlayground } from './playground.js'
import { PurgeLog } from './purge-log.js'
import { mountSecondFrame } from './second-frame.js'
import { StorePanel } from './store-panel.js'

/** Longest gap between two refreshes; a visible item that expires sooner gets its own refresh. */
const REFRESH_MS = 500
const STATS_MS = 1000

const $ = (id: string) => document.getElementById(id) as HTMLElement
const params = readParams(location.search)
const status = $('status')

if (params.second) mountSecondFrame(params)
else {
  mountFrameMeter($('meter'))
  mountPlayground($('playground'))
  setText(status, `Opening IndexedDB database "${params.dbName}"…`)
  openDemoDB(params).then(start, (error: Error) => {
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

function start(db: DemoDB): void {
  const cadence = params.purge.maxIntervalMs ? `, maxIntervalMs ${params.purge.maxIntervalMs}` : ''
  const ready = `IndexedDB database "${params.dbName}" · purge: Web Worker${cadence} · state survives a reload`
  setText(status, ready)
  status.dataset.state = 'ready'

  const log = new PurgeLog()
  const chart = new CountChart()
  const hooks = (name: string) => ({ changed: refresh, storage: localStorage, storageKey: `idb-ttl-demo:${params.dbName}:${name}:default` })
  const extras: Partial<Record<StoreInfo['name'], HTMLElement>> = {
    events: bulkControl(db, refresh),
    cache: fillControl(db, params.fill, refresh),
  }
  const panels = STORES.map((info) => new StorePanel(db, info, hooks(info.name), extras[info.name]))
  $('stores').replaceChildren(...panels.map((p) => p.el))
  $('purge').replaceChildren(log.el, chart.el)

  const expired = new ExpireLog('This page: db.onExpire')
  db.onExpire((event) => {
    expired.add(event)
    if (event.reason === 'evicted') panels.find((p) => p.info.name === event.store)?.evicted(event.items.map((item) => item.key))
  })
  const second = secondFrame()
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
  let timer: ReturnType<typeof setTimeout> | undefined
  async function refresh(): Promise<void> {
    if (running) {
      again = true
      return
    }
    running = true
    clearTimeout(timer)
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
    if (again) {
      again = false
      void refresh()
      return
    }
    const next = Math.min(...panels.map((p) => p.nextExpiry()))
    const delay = Math.min(REFRESH_MS, Math.max(0, next - Date.now()) + 1)
    timer = setTimeout(refresh, delay)
  }
  void refresh()

  // Bars move a few pixels a second: five repaints a second look as good as sixty and leave the
  // frames to whatever else is going on (software rendering makes every repaint count).
  let painted = 0
  const frame = (t: number) => {
    if (t - painted >= 200) {
      painted = t
      const now = Date.now()
      for (const p of panels) p.frame(now)
    }
    requestAnimationFrame(frame)
  }
  requestAnimationFrame(frame)

  const reset = $('reset') as HTMLButtonElement
  reset.disabled = false
  reset.addEventListener('click', async () => {
    reset.disabled = true
    clearTimeout(timer)
    clearInterval(statsTimer)
    second.remove()
    setText(status, 'Deleting the database…')
    for (const p of panels) localStorage.removeItem(hooks(p.info.name).storageKey)
    await resetDemo(db, params.dbName, () => setText(status, 'Deleting the database: waiting for other tabs of this demo to close it…'))
    location.reload()
  })
}

