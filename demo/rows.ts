/**
 * A keyed list of item rows with countdown bars. Rows are updated in place, never rebuilt, so a
 * button under the pointer survives the periodic refresh. A row whose item left the column lingers
 * briefly, marked gone with when and why, because expiry and purge are often only milliseconds
 * apart and a viewer should still see the two steps.
 */
import { effectiveTtl, expiresAt, isValidTtl, itemTtl, type DefaultTtl } from '../src/index.js'
import { formatSeconds, h, setText } from './dom.js'
import { showValue } from './ttl-input.js'
import type { DemoItem } from './database.js'

export interface RowData {
  key: IDBValidKey
  item: DemoItem
  /** Whether reads return it now (on-disk rows may be dead, awaiting the purge). */
  live: boolean
  /**
   * `db.expiresAt` of a live item (watermarks and sliding touches included); when absent the
   * row falls back to the shared resolver, which is all a dead item has.
   */
  expiresAt?: number
}

interface RowView {
  key: IDBValidKey
  el: HTMLLIElement
  fill: HTMLDivElement
  label: HTMLSpanElement
  ttl: HTMLSpanElement
  note: HTMLSpanElement
  ts: HTMLSpanElement
  badge?: HTMLSpanElement
  /** epoch ms by the current default; Infinity: never */
  expiresAt: number
  lifetimeMs: number
  defaultTtl: DefaultTtl
  live: boolean
  /** Set while the row lingers after its item left the column. */
  gone?: ReturnType<typeof setTimeout>
}

export interface RowActions {
  rewrite(key: IDBValidKey): void
  remove(key: IDBValidKey): void
  /** On a `touchOnRead` store: read the item, which restarts its countdown. */
  read?(key: IDBValidKey): void
}

const keyString = (key: IDBValidKey) => `${typeof key}:${String(key)}`
/** How long a row stays, marked gone: short in reads (it is gone), longer on disk (to see the purge). */
const LINGER_MS = { reads: 1200, disk: 2500 }

function ttlLabel(ttl: unknown): string {
  if (ttl === undefined || ttl === null) return 'inherits'
  if (!isValidTtl(ttl)) return `ttl ${showValue(ttl)} (invalid, inherits)`
  return ttl === -1 ? 'ttl -1' : `ttl ${String(ttl)} s`
}

/** How long after its expiry the page saw an item leave the disk (a default change may blur it). */
function purgedLabel(lateMs: number): string {
  if (!(lateMs >= 0 && lateMs < 60_000)) return 'purged'
  return `purged ${lateMs < 1000 ? `${Math.round(lateMs)} ms` : formatSeconds(lateMs)} after expiry`
}

function lifetime(item: DemoItem, defaultTtl: DefaultTtl): { at: number; ms: number } {
  try {
    const seconds = effectiveTtl(itemTtl(item.ttl, 'lenient'), defaultTtl)
    return { at: expiresAt(item, defaultTtl, { ttlValues: 'lenient' }), ms: (seconds ?? 0) * 1000 }
  } catch {
    return { at: NaN, ms: 0 }
  }
}

export class RowList {
  readonly el: HTMLOListElement
  private readonly rows = new Map<string, RowView>()
  /** Rows shown whose items were evicted, not yet seen leaving. */
  private readonly evictedIds = new Set<string>()

  constructor(testid: string, private readonly column: 'reads' | 'disk', private readonly actions: RowActions) {
    this.el = h('ol', { class: 'rows', 'data-testid': testid })
  }

  /** `truncated`: more items follow the ones given, so a row past the last was only pushed out. */
  update(data: RowData[], defaultTtl: DefaultTtl, truncated: boolean): void {
    const seen = new Set<string>()
    // Rows already shown are in key order and keys never move, so only new rows are inserted:
    // each one before the row that follows it.
    let next: Element | null = null
    for (let i = data.length - 1; i >= 0; i--) {
      const d = data[i]
      const id = keyString(d.key)
      seen.add(id)
      let view = this.rows.get(id)
      if (!view) {
        view = this.create(d.key)
        this.rows.set(id, view)
        this.el.insertBefore(view.el, next)
      }
      clearTimeout(view.gone)
      view.gone = undefined
      this.fill(view, d, defaultTtl)
      next = view.el
    }
    const last = data.at(-1)?.key
    for (const [id, view] of this.rows) {
      if (seen.has(id) || view.gone !== undefined) continue
      if (truncated && last !== undefined && indexedDB.cmp(view.key, last) > 0) {
        view.el.remove()
        this.rows.delete(id)
        this.evictedIds.delete(id)
      } else this.leave(id, view)
    }
  }

  /**
   * Items evicted (heard through `onExpire`): their rows leave saying so rather than "deleted",
   * whether the event comes before or after the refresh that saw them go.
   */
  evicted(keys: IDBValidKey[]): void {
    for (const key of keys) {
      const id = keyString(key)
      const view = this.rows.get(id)
      if (view?.gone !== undefined) this.showEvicted(view)
      else if (view) this.evictedIds.add(id)
    }
  }

  private showEvicted(view: RowView): void {
    setText(view.label, 'evicted')
    if (view.badge) setText(view.badge, 'evicted')
  }

  private leave(id: string, view: RowView): void {
    const now = Date.now()
    const late = now - view.expiresAt
    const expired = !view.live || late >= 0
    const why = !expired ? 'deleted' : this.column === 'reads' ? 'expired' : purgedLabel(late)
    view.el.dataset.state = 'gone'
    view.fill.style.transform = 'scaleX(0)'
    setText(view.label, why)
    if (view.badge) setText(view.badge, expired ? 'purged by the worker' : 'deleted')
    if (this.evictedIds.delete(id)) this.showEvicted(view)
    view.gone = setTimeout(() => {
      view.el.remove()
      this.rows.delete(id)
    }, LINGER_MS[this.column])
  }

  private create(key: IDBValidKey): RowView {
    const fill = h('div', { class: 'fill' })
    const label = h('span', { class: 'countdown', 'data-testid': 'countdown' })
    const ttl = h('span', { class: 'ttl' })
    const note = h('span', { class: 'note' })
    const ts = h('span', { class: 'ts' })
    const badge = this.column === 'disk' ? h('span', { class: 'badge', 'data-testid': 'state' }) : undefined
    const buttons =
      this.column === 'reads'
        ? h('span', { class: 'row-buttons' },
            this.actions.read && h('button', { type: 'button', class: 'small', title: 'db.get it: on a touchOnRead store a read restarts the countdown', 'data-testid': 'read', onclick: () => this.actions.read?.(key) }, 'read'),
            h('button', { type: 'button', class: 'small', title: 'write it again: _ts = now, the countdown restarts', 'data-testid': 'rewrite', onclick: () => this.actions.rewrite(key) }, 'rewrite'),
            h('button', { type: 'button', class: 'small ghost', title: 'delete', 'aria-label': 'delete', 'data-testid': 'delete', onclick: () => this.actions.remove(key) }, '×'))
        : badge
    const el = h('li', { class: 'row', 'data-testid': 'row', 'data-key': String(key) },
      h('div', { class: 'row-head' }, h('span', { class: 'key' }, String(key)), note, ttl, ts),
      h('div', { class: 'row-bar' }, h('div', { class: 'bar' }, fill), label),
      buttons ?? null)
    return { key, el, fill, label, ttl, note, ts, badge, expiresAt: NaN, lifetimeMs: 0, defaultTtl: null, live: true }
  }

  private fill(view: RowView, d: RowData, defaultTtl: DefaultTtl): void {
    const { at: resolved, ms } = lifetime(d.item, defaultTtl)
    const at = d.expiresAt ?? resolved
    view.expiresAt = at
    view.lifetimeMs = ms
    view.defaultTtl = defaultTtl
    view.live = d.live
    view.el.dataset.state = d.live ? 'live' : 'dead'
    view.label.dataset.expiresAt = d.live ? (Number.isFinite(at) ? String(at) : 'never') : 'expired'
    setText(view.note, d.item.note ?? '')
    setText(view.ttl, ttlLabel(d.item.ttl))
    setText(view.ts, typeof d.item._ts === 'number' ? `_ts ${d.item._ts}` : '')
    if (view.badge) setText(view.badge, d.live ? 'live' : 'expired · awaiting purge')
    this.tick(view, Date.now())
  }

  /** Moves every bar and countdown to `now`; called once per frame. */
  frame(now: number): void {
    for (const view of this.rows.values()) if (view.gone === undefined) this.tick(view, now)
  }

  private tick(view: RowView, now: number): void {
    let fraction: number
    let text: string
    if (!view.live) {
      fraction = 0
      // A default change can leave an item dead whose expiry, by today's default, lies ahead.
      const ago = now - view.expiresAt
      text = ago >= 0 && ago < 3_600_000 ? `expired ${formatSeconds(ago)} ago` : 'expired'
    } else if (Number.isNaN(view.expiresAt)) {
      fraction = 0
      text = '?'
    } else if (view.expiresAt === Infinity) {
      fraction = 1
      text = view.defaultTtl === null ? 'never · TTL off' : 'never'
    } else {
      const left = view.expiresAt - now
      fraction = view.lifetimeMs > 0 ? Math.min(1, Math.max(0, left / view.lifetimeMs)) : 0
      text = left > 0 ? formatSeconds(left) : 'expiring…'
    }
    view.fill.style.transform = `scaleX(${fraction.toFixed(4)})`
    view.fill.dataset.level = view.expiresAt === Infinity ? 'never' : fraction > 0.5 ? 'high' : fraction > 0.2 ? 'mid' : 'low'
    setText(view.label, text)
  }

  /** The earliest expiry among the live rows shown, epoch ms. */
  nextExpiry(): number {
    let next = Infinity
    for (const view of this.rows.values()) if (view.live && view.gone === undefined && view.expiresAt < next) next = view.expiresAt
    return next
  }
}
