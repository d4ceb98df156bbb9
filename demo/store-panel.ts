/**
 * Section 2, one store: its default and controls, its `db.stats` figures, an add form, and two
 * columns side by side: what is live now (a live query, `db.live`) and what is physically stored
 * (`db.raw`). The live query emits after every change, in any tab, and at the second an item of
 * the column expires: the page refreshes then, and never polls. Countdowns come from `db.expiresAt`.
 */
import type { DefaultTtl, LiveQuery, StoreStats } from '../src/index.js'
import { fmt, formatSeconds, h, setText } from './dom.js'
import type { DemoDB, DemoItem, StoreInfo } from './database.js'
import { RowList, type RowData } from './rows.js'
import { parseTtlInput } from './ttl-input.js'
import { WriteForm } from './write-form.js'

/** Rows shown per column; counts are always exact. */
const SHOWN = 25

export interface PanelHooks {
  /** Something was written: refresh everything now. */
  changed(): void
  /** Where the last non-null default is remembered across reloads, for "re-enable". */
  storage: Storage
  storageKey: string
}

function describeDefault(d: DefaultTtl): string {
  if (d === null) return 'off (null)'
  return d === -1 ? '-1 (on, no default expiry)' : `${fmt.format(d)} s`
}

export class StorePanel {
  readonly el: HTMLElement
  liveCount = 0
  diskCount = 0
  defaultTtl: DefaultTtl = null
  private readonly reads: RowList
  private readonly disk: RowList
  private readonly defaultBadge: HTMLElement
  private readonly defaultInput: HTMLInputElement
  private readonly toggle: HTMLButtonElement
  private readonly writes: WriteForm
  private readonly readsCount: HTMLElement
  private readonly diskCount_: HTMLElement
  private readonly readsMore: HTMLElement
  private readonly diskMore: HTMLElement
  private readonly stats: Record<'live' | 'expired' | 'next', HTMLElement>
  /** The column's items; a live query never touches, so a sliding store's sessions are not kept alive by being shown. */
  private readonly liveItems: LiveQuery<DemoItem>

  constructor(private readonly db: DemoDB, readonly info: StoreInfo, private readonly hooks: PanelHooks) {
    const name = info.name
    const actions = {
      rewrite: (key: IDBValidKey) => this.writes.run(() => db.touch(name, key)),
      remove: (key: IDBValidKey) => this.writes.run(() => db.delete(name, key)),
      read: info.sliding ? (key: IDBValidKey) => this.writes.run(() => db.get(name, key)) : undefined,
    }
    this.liveItems = db.live(name, { count: SHOWN }) as LiveQuery<DemoItem>
    this.reads = new RowList(`reads-${name}`, 'reads', actions)
    this.disk = new RowList(`disk-${name}`, 'disk', actions)
    this.defaultBadge = h('span', { class: 'default-badge', 'data-testid': `default-${name}` })
    this.defaultInput = h('input', { type: 'text', class: 'num', value: String(info.declared ?? 60), 'aria-label': `new default for ${name}`, 'data-testid': `default-input-${name}` })
    this.toggle = h('button', { type: 'button', 'data-testid': `toggle-ttl-${name}`, onclick: () => this.toggleTtl() }, 'Disable TTL')
    this.readsCount = h('span', { class: 'count', 'data-testid': `reads-count-${name}` }, '0')
    this.diskCount_ = h('span', { class: 'count', 'data-testid': `disk-count-${name}` }, '0')
    this.readsMore = h('p', { class: 'more' })
    this.diskMore = h('p', { class: 'more' })
    const figure = (what: string) => h('b', { 'data-testid': `stats-${what}-${name}` }, '…')
    this.stats = { live: figure('live'), expired: figure('expired'), next: figure('next') }
    const statsLine = h('p', { class: 'stats', 'data-testid': `stats-${name}`, title: 'db.stats, polled every second' },
      h('small', {}, 'db.stats'), ' live ', this.stats.live, ' · expired on disk ', this.stats.expired, ' · next expiry ', this.stats.next)
    const readAll = info.sliding
      ? h('button', { type: 'button', 'data-testid': `read-all-${name}`, title: 'db.getAll: every item returned gets a new countdown', onclick: () => this.writes.run(() => db.getAll(name)) }, 'Read all')
      : null

    this.writes = new WriteForm({
      id: name,
      ...(info.keyPath === 'id' && { key: { label: info.keyPath, ariaLabel: 'key' } }),
      keyPrefix: name[0],
      submit: 'Add item',
      write: (item) => db.put(name, item),
      changed: () => hooks.changed(),
    }, readAll)

    this.el = h('article', { class: 'store', 'data-testid': `store-${name}` },
      h('header', { class: 'store-head' },
        h('div', {}, h('h3', {}, name), h('p', { class: 'blurb' }, info.blurb)),
        h('div', { class: 'store-controls' },
          h('span', { class: 'label' }, 'defaultTtl'), this.defaultBadge,
          h('form', { class: 'inline', onsubmit: (event) => {
            event.preventDefault()
            this.writes.run(() => this.setDefault(parseTtlInput(this.defaultInput.value) as DefaultTtl))
          } }, this.defaultInput, h('button', { type: 'submit', 'data-testid': `set-default-${name}` }, 'Set default')),
          this.toggle)),
      statsLine,
      this.writes.form,
      this.writes.error,
      h('div', { class: 'columns' },
        h('section', { class: 'column' }, info.sliding
          ? h('h4', {}, 'Live ', h('small', {}, 'db.live, no touch'), this.readsCount)
          : h('h4', {}, 'Reads return ', h('small', {}, 'db.live'), this.readsCount), this.reads.el, this.readsMore),
        h('section', { class: 'column disk' }, h('h4', {}, 'On disk ', h('small', {}, 'db.raw'), this.diskCount_), this.disk.el, this.diskMore)))
  }

  private async setDefault(value: DefaultTtl): Promise<void> {
    await this.db.setDefaultTtl(this.info.name, value)
    if (value !== null) this.hooks.storage.setItem(this.hooks.storageKey, String(value))
  }

  private toggleTtl(): void {
    if (this.defaultTtl !== null) {
      this.hooks.storage.setItem(this.hooks.storageKey, String(this.defaultTtl))
      this.writes.run(() => this.db.setDefaultTtl(this.info.name, null))
    } else {
      const remembered = Number(this.hooks.storage.getItem(this.hooks.storageKey) ?? this.info.declared ?? -1)
      this.writes.run(() => this.db.setDefaultTtl(this.info.name, remembered))
    }
  }

  /** Reads both views of the store; each comes from its own transaction. */
  async refresh(): Promise<void> {
    const { db, info } = this
    const name = info.name
    // A library call first: after another tab reset the database it reopens the connection,
    // which `db.raw` does not do by itself.
    const defaultTtl = await db.getDefaultTtl(name)
    // Taken first: after close() `db.raw` throws, and it must not leave the reads below unheard.
    const raw = db.raw
    const [live, liveCount, disk, diskCount] = await Promise.all([
      this.live(),
      db.count(name),
      raw.getAll(name, null, SHOWN) as Promise<DemoItem[]>,
      raw.count(name),
    ])
    const keyOf = (item: DemoItem) => item[info.keyPath] as IDBValidKey
    const expiries = new Map<string, number>()
    await Promise.all(live.map(async (item) => {
      const at = await db.expiresAt(name, keyOf(item))
      if (at !== undefined) expiries.set(String(keyOf(item)), at)
    }))
    let liveOnDisk = new Set<string>()
    if (disk.length > 0) {
      const range = IDBKeyRange.bound(keyOf(disk[0]), keyOf(disk[disk.length - 1]))
      liveOnDisk = new Set((await db.getAllKeys(name, range)).map(String))
    }
    this.defaultTtl = defaultTtl
    this.liveCount = liveCount
    this.diskCount = diskCount
    const row = (item: DemoItem, live: boolean): RowData => ({ key: keyOf(item), item, live, expiresAt: live ? expiries.get(String(keyOf(item))) : undefined })
    const readRows = live.map((item) => row(item, true))
    const diskRows = disk.map((item) => row(item, liveOnDisk.has(String(keyOf(item)))))
    this.reads.update(readRows, defaultTtl, liveCount > live.length)
    this.disk.update(diskRows, defaultTtl, diskCount > disk.length)
    setText(this.defaultBadge, describeDefault(defaultTtl))
    this.defaultBadge.dataset.value = String(defaultTtl)
    setText(this.toggle, defaultTtl === null ? 'Re-enable TTL' : 'Disable TTL')
    setText(this.readsCount, fmt.format(liveCount))
    setText(this.diskCount_, fmt.format(diskCount))
    setText(this.readsMore, liveCount > live.length ? `… and ${fmt.format(liveCount - live.length)} more` : live.length ? '' : 'nothing')
    setText(this.diskMore, diskCount > disk.length ? `… and ${fmt.format(diskCount - disk.length)} more` : disk.length ? '' : 'nothing')
  }

  /** Calls `onChange` with each new result of the live column: after any change, in any tab, and when one of its items expires. */
  follow(onChange: () => void): () => void {
    return this.liveItems.subscribe(() => onChange())
  }

  /**
   * The live items shown: the live query's latest result (before its first, a read of the same).
   * On a sliding store a read would touch them, so the panel would keep every session alive by
   * looking at it; a live query touches nothing.
   */
  private async live(): Promise<DemoItem[]> {
    const held = this.liveItems.getSnapshot()
    if (held) return held
    const { db, info } = this
    if (!info.sliding) return db.getAll(info.name, null, SHOWN) as Promise<DemoItem[]>
    const keys = await db.getAllKeys(info.name, null, SHOWN)
    const raw = db.raw
    const values = await Promise.all(keys.map((key) => raw.get(info.name, key) as Promise<DemoItem | undefined>))
    return values.filter((value): value is DemoItem => value !== undefined)
  }

  /** The `db.stats` figures; cheap (index counts only), so polled every second. */
  async refreshStats(now = Date.now()): Promise<void> {
    const s: StoreStats = await this.db.stats(this.info.name)
    setText(this.stats.live, fmt.format(s.live))
    setText(this.stats.expired, fmt.format(s.expiredOnDisk))
    setText(this.stats.next, s.nextExpiryMs === Infinity ? 'none' : `in ${formatSeconds(s.nextExpiryMs - now)}`)
    this.stats.next.dataset.at = String(s.nextExpiryMs)
  }

  /** Keys `onExpire` reported evicted from this store. */
  evicted(keys: IDBValidKey[]): void {
    this.reads.evicted(keys)
    this.disk.evicted(keys)
  }

  frame(now: number): void {
    this.reads.frame(now)
    this.disk.frame(now)
  }
}
