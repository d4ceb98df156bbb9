/**
 * Section 1, the first screen: the whole life of one item, played as soon as the page opens. An
 * item is written to the `tour` store (default ttl 10 s), counts down (`db.expiresAt`), leaves
 * reads the instant it expires while it is still on disk (`db.get` → `undefined`, `db.raw.get` →
 * the record), and is deleted by the background purge (heard through `onExpire`). Each step keeps
 * what it showed and when, since expiry and purge can be only milliseconds apart. "Write another
 * item" plays it again.
 */
import type { ExpireEvent } from '../src/index.js'
import { formatSeconds, h, setText } from './dom.js'
import { TOUR_STORE, TOUR_TTL, type DemoDB, type DemoItem } from './database.js'

/** How often both views of the item are read while it lives and while it waits on disk. */
const POLL_MS = 100
/**
 * The read at the expiry instant is woken this much before it and waits out the rest, so that it
 * is asked for before the purge's own timer for that instant runs (see `observe`).
 */
const AHEAD_MS = 5
/** After this long on disk past its expiry, step 4 says the purge has not come (yet). */
const PURGE_PATIENCE_MS = 60_000

type StepName = 'write' | 'live' | 'expired' | 'purged'
type StepState = 'waiting' | 'now' | 'done'

interface Step {
  el: HTMLElement
  body: HTMLElement
  when: HTMLElement
}

/** The record as code shows it: `{ id: 'item-1', … }`, one line. */
function show(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value)
}

/** A short delay: `46 ms`, `2.3 s`. */
function late(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : formatSeconds(ms)
}

/** Seconds since the write, for the step stamps: `+10.0 s`. */
function since(ms: number): string {
  return `+${(ms / 1000).toFixed(1)} s`
}

export class Tour {
  readonly el: HTMLElement
  private readonly steps: Record<StepName, Step>
  private readonly button: HTMLButtonElement
  private readonly readsView: HTMLElement
  private readonly diskView: HTMLElement
  private readonly countdown: HTMLElement
  private readonly fill: HTMLElement
  private readonly summary: HTMLElement
  private db: DemoDB | undefined
  private run = 0
  private runs = 0
  /** The item of the current run. */
  private current: { run: number; key: string; ts: number; writtenAt: number; expiresAt: number; expiredAt?: number; purgedAt?: number; heard?: boolean } | undefined
  private poll: ReturnType<typeof setTimeout> | undefined

  constructor() {
    const step = (name: StepName, n: number, title: string, call: string): Step => {
      const body = h('div', { class: 'tour-body', 'data-testid': `tour-${name}-body` })
      const when = h('span', { class: 'tour-when', 'data-testid': `tour-${name}-when` })
      const el = h('li', { class: 'tour-step', 'data-testid': `tour-${name}`, 'data-state': 'waiting' },
        h('div', { class: 'tour-title' }, h('span', { class: 'tour-n' }, String(n)), h('b', {}, title), when),
        h('code', { class: 'tour-call' }, call),
        body)
      return { el, body, when }
    }
    this.steps = {
      write: step('write', 1, 'Write', `db.put('${TOUR_STORE}', item)`),
      live: step('live', 2, 'Count down', `db.expiresAt('${TOUR_STORE}', key)`),
      expired: step('expired', 3, 'Expired: reads hide it', `db.get('${TOUR_STORE}', key)`),
      purged: step('purged', 4, 'Purged from disk', `db.onExpire(listener)`),
    }
    this.countdown = h('span', { class: 'tour-countdown', 'data-testid': 'tour-countdown' }, '–')
    this.fill = h('div', { class: 'fill' })
    this.steps.live.body.append(h('div', { class: 'tour-clock' }, this.countdown, h('div', { class: 'bar' }, this.fill)))
    this.readsView = h('code', { class: 'tour-value', 'data-testid': 'tour-reads' }, '…')
    this.diskView = h('code', { class: 'tour-value', 'data-testid': 'tour-disk' }, '…')
    this.summary = h('p', { class: 'tour-summary', 'data-testid': 'tour-summary' }, 'Opening the database…')
    this.button = h('button', { type: 'button', class: 'primary', disabled: true, 'data-testid': 'tour-again', onclick: () => void this.play() }, 'Write another item')
    this.el = h('div', { class: 'tour', 'data-testid': 'tour', 'data-state': 'idle' },
      h('ol', { class: 'tour-steps' }, ...Object.values(this.steps).map((s) => s.el)),
      h('div', { class: 'tour-now' },
        h('div', { class: 'tour-view' }, h('span', { class: 'tour-label' }, 'What reads return now ', h('small', {}, `db.get('${TOUR_STORE}', key)`)), this.readsView),
        h('div', { class: 'tour-view disk' }, h('span', { class: 'tour-label' }, 'What is on disk now ', h('small', {}, `db.raw.get('${TOUR_STORE}', key)`)), this.diskView)),
      h('div', { class: 'tour-foot' }, this.summary, this.button))
  }

  /** Starts the first run once the database is open; `onExpire` tells step 4. */
  start(db: DemoDB): void {
    this.db = db
    db.onExpire((event) => this.heard(event), { stores: [TOUR_STORE] })
    void this.play()
  }

  private set(name: StepName, state: StepState, when?: string): void {
    const s = this.steps[name]
    s.el.dataset.state = state
    if (when !== undefined) setText(s.when, when)
  }

  private lines(name: StepName, ...lines: (string | Node)[]): void {
    this.steps[name].body.replaceChildren(...lines.map((line) => (typeof line === 'string' ? h('div', {}, line) : line)))
  }

  /** A line of code and what it returned: `→ undefined`. */
  private result(call: string, value: string, cls = ''): HTMLElement {
    return h('div', { class: `tour-result ${cls}` }, h('code', {}, call), ' → ', h('code', { class: 'tour-out' }, value))
  }

  async play(): Promise<void> {
    const db = this.db
    if (!db) return
    const run = ++this.run
    clearTimeout(this.poll)
    this.button.disabled = true
    this.el.dataset.state = 'running'
    for (const data of ['key', 'expiresAt', 'expiredAt', 'seenOnDisk', 'purgedAt']) delete this.el.dataset[data]
    for (const name of Object.keys(this.steps) as StepName[]) {
      this.set(name, 'waiting', '')
      this.lines(name)
    }
    this.lines('live', h('div', { class: 'tour-clock' }, this.countdown, h('div', { class: 'bar' }, this.fill)))
    // A key of its own per run and per tab: two tabs of the demo each play their own item.
    const key = `item-${++this.runs}-${Math.random().toString(36).slice(2, 5)}`
    const item: DemoItem = { id: key, note: 'hello' }
    this.set('write', 'now')
    setText(this.summary, `Writing ${key}…`)
    try {
      const writtenAt = Date.now()
      await db.put(TOUR_STORE, item)
      const [stored, expiresAt] = await Promise.all([db.get(TOUR_STORE, key) as Promise<DemoItem | undefined>, db.expiresAt(TOUR_STORE, key)])
      if (run !== this.run) return
      if (!stored || expiresAt === undefined || !Number.isFinite(expiresAt)) {
        // The store's default was changed in another tab (a reset, another version of the demo).
        throw new Error(`${key} did not come back with an expiry: is TTL still on in "${TOUR_STORE}"?`)
      }
      this.current = { run, key, ts: stored._ts ?? 0, writtenAt, expiresAt }
      this.el.dataset.key = key
      this.el.dataset.expiresAt = String(expiresAt)
      this.set('write', 'done', since(0))
      this.lines('write', this.result(`db.put('${TOUR_STORE}', { id: '${key}', note: 'hello' })`, `'${key}'`),
        `stored with _ts ${stored._ts} (the write, in epoch seconds); the store's defaultTtl is ${TOUR_TTL} s`)
      this.set('live', 'now')
      const at = `${new Date(expiresAt).toLocaleTimeString('en-GB', { hour12: false })}.${String(expiresAt % 1000).padStart(3, '0')}`
      this.steps.live.body.append(
        h('div', { class: 'tour-result' }, '→ ', h('code', { class: 'tour-out' }, at), ` = (_ts + ${TOUR_TTL}) s`),
        h('div', {}, `_ts is whole seconds, so it lives ${TOUR_TTL - 1}–${TOUR_TTL} s.`))
      setText(this.summary, `${key} lives until its countdown ends. Nothing to click: watch the four steps.`)
      this.frame(Date.now())
      void this.observe(run)
    } catch (error) {
      if (run !== this.run) return
      this.set('write', 'now')
      this.lines('write', h('div', { class: 'error' }, `${(error as Error).name}: ${(error as Error).message}`))
      this.finish('The write failed; see the message in step 1.')
    }
  }

  /** Reads both views of the item, moves the steps on, and reads again soon. */
  private async observe(run: number): Promise<void> {
    const db = this.db
    const item = this.current
    if (!db || !item || item.run !== run || run !== this.run) return
    let views: [unknown, unknown]
    // The background purge wakes at the expiry instant too, and may delete the record before a read
    // woken at that instant asks for it. Woken a little ahead, this read waits out the last
    // milliseconds here, holding the page until then, so it is asked for first: the record is seen on disk.
    if (item.expiresAt - Date.now() <= AHEAD_MS) while (Date.now() < item.expiresAt);
    const asked = Date.now()
    try {
      const raw = db.raw
      views = await Promise.all([db.get(TOUR_STORE, item.key), raw.get(TOUR_STORE, item.key)])
    } catch {
      // A read that failed (the database being reset, say) tells nothing: look again later.
      if (run === this.run) this.poll = setTimeout(() => void this.observe(run), POLL_MS)
      return
    }
    if (run !== this.run) return
    const [live, disk] = views
    const now = Date.now()
    setText(this.readsView, show(live))
    setText(this.diskView, show(disk))
    this.readsView.dataset.empty = String(live === undefined)
    this.diskView.dataset.empty = String(disk === undefined)
    if (live === undefined && item.expiredAt === undefined) this.expired(now, disk)
    if (disk === undefined && item.purgedAt === undefined) this.purged(now)
    if (item.purgedAt !== undefined) return
    if (item.expiredAt !== undefined && now - item.expiresAt > PURGE_PATIENCE_MS) {
      this.lines('purged', `Not purged ${formatSeconds(now - item.expiresAt)} after expiry: the background purge has not run (see "Purge in action" below). Reads still hide it.`)
      this.finish('Reads hid the item at once; the purge has not deleted it yet.')
      return
    }
    // Read again at the expiry instant itself (woken AHEAD_MS before it), then every POLL_MS. A read
    // asked before that instant is followed at once by another if the instant passed meanwhile:
    // waiting a poll, it would let the purge go first and miss the record on disk.
    const untilExpiry = item.expiresAt - now
    const delay = asked < item.expiresAt ? Math.max(0, Math.min(POLL_MS, untilExpiry - AHEAD_MS)) : POLL_MS
    this.poll = setTimeout(() => void this.observe(run), delay)
  }

  /** Step 3: reads no longer return the item; `disk` is what `db.raw` still holds. */
  private expired(now: number, disk: unknown): void {
    const item = this.current!
    item.expiredAt = now
    this.el.dataset.expiredAt = String(now)
    this.el.dataset.seenOnDisk = String(disk !== undefined)
    this.set('live', 'done', since(item.expiresAt - item.writtenAt))
    setText(this.countdown, 'expired')
    this.fill.style.transform = 'scaleX(0)'
    this.set('expired', disk === undefined ? 'done' : 'now', since(now - item.writtenAt))
    this.lines('expired',
      this.result(`db.get('${TOUR_STORE}', '${item.key}')`, 'undefined'),
      this.result(`db.raw.get('${TOUR_STORE}', '${item.key}')`, disk === undefined ? 'undefined (already purged)' : 'the record: still on disk', disk === undefined ? '' : 'tour-disk-line'),
      'getAll, count and index reads leave it out too: nothing waits for the purge.')
    setText(this.summary, `${item.key} expired: reads hide it now, while the purge worker has yet to delete it from disk.`)
  }

  /** Step 4: the record is gone from disk (seen by `db.raw.get` or heard through `onExpire`). */
  private purged(now: number, event?: ExpireEvent): void {
    const item = this.current!
    if (item.expiredAt === undefined) this.expired(now, undefined)
    item.purgedAt = now
    this.el.dataset.purgedAt = String(now)
    this.set('expired', 'done')
    this.set('purged', 'done', since(now - item.writtenAt))
    this.purgedLines(event)
    if (item.expiredAt !== undefined && item.expiredAt < now) {
      this.steps.expired.body.append(h('div', { class: 'tour-note' }, `It stayed on disk, invisible, for ${late(now - item.expiredAt)} after this read.`))
    }
    setText(this.readsView, 'undefined')
    setText(this.diskView, 'undefined')
    this.readsView.dataset.empty = 'true'
    this.diskView.dataset.empty = 'true'
    this.finish(`The whole life of ${item.key}: written, counted down, hidden from reads, purged from disk.`)
  }

  /** What step 4 says: what `onExpire` heard, or what `db.raw.get` saw when it saw the record gone first. */
  private purgedLines(event?: ExpireEvent): void {
    const item = this.current!
    const after = Math.max(0, item.purgedAt! - item.expiresAt)
    this.lines('purged',
      event
        ? h('div', {}, 'the listener heard ', h('code', { class: 'tour-out' }, `{ store: '${event.store}', reason: '${event.reason}' }`), ` with ${item.key} and its value`)
        : this.result(`db.raw.get('${TOUR_STORE}', '${item.key}')`, 'undefined'),
      `The background purge (a Web Worker) deleted it from disk ${late(after)} after it expired. How soon is not promised; that reads never return it is.`)
  }

  private heard(event: ExpireEvent): void {
    const item = this.current
    if (!item || item.heard) return
    // The same key from an earlier page load carries another _ts.
    const mine = event.items.find((i) => i.key === item.key && (i.value as DemoItem | undefined)?._ts === item.ts)
    if (!mine) return
    item.heard = true
    // A read may have seen the record gone before the event came (both follow the purge's commit): the step then says what was heard.
    if (item.purgedAt === undefined) this.purged(Date.now(), event)
    else this.purgedLines(event)
  }

  private finish(summary: string): void {
    clearTimeout(this.poll)
    setText(this.summary, summary)
    this.el.dataset.state = 'done'
    this.button.disabled = false
  }

  /** Stops the current run (before the database is deleted): no read after this. */
  stop(): void {
    this.run++
    clearTimeout(this.poll)
    this.button.disabled = true
  }

  /** Moves the countdown; called with the page's repaints. */
  frame(now: number): void {
    const item = this.current
    if (!item || item.expiredAt !== undefined || item.run !== this.run) return
    const left = item.expiresAt - now
    setText(this.countdown, left > 0 ? `${formatSeconds(left)} left` : 'expiring…')
    const fraction = Math.min(1, Math.max(0, left / (TOUR_TTL * 1000)))
    this.fill.style.transform = `scaleX(${fraction.toFixed(4)})`
    this.fill.dataset.level = fraction > 0.5 ? 'high' : fraction > 0.2 ? 'mid' : 'low'
  }
}
