/**
 * Section 7, one side: the container on the server, or its mirror in IndexedDB. A heading, an
 * add form (`id`, `note`, `ttl`), and the items with their countdowns (the rows of section 2,
 * demo/rows.ts): each side says how it writes, the panel says what it shows.
 */
import type { DefaultTtl } from '../src/index.js'
import { fmt, h, setText } from './dom.js'
import type { DemoItem } from './database.js'
import { RowList, type RowData } from './rows.js'
import { WriteForm, type FormItem } from './write-form.js'

/** How a side writes: on the server through the SDK, or locally through the store. */
export interface SideWrites {
  put(item: { id: string; note?: string; ttl?: unknown }): Promise<unknown>
  /** Writes the item again as it is: a new `_ts`, its countdown restarts. */
  rewrite(id: string): Promise<unknown>
  remove(id: string): Promise<unknown>
}

export type SideName = 'server' | 'mirror'

export class CosmosSide {
  readonly el: HTMLElement
  private readonly rows: RowList
  private readonly count: HTMLElement
  private readonly writes: WriteForm

  constructor(readonly name: SideName, title: HTMLElement, note: HTMLElement, writes: SideWrites, changed: () => void) {
    this.writes = new WriteForm({
      id: `cosmos-${name}`,
      key: { label: 'id', ariaLabel: 'id' },
      keyPrefix: name[0],
      submit: 'Write',
      // The form has a key field: every item it builds has an id.
      write: (item) => writes.put(item as FormItem & { id: string }),
      changed,
    })
    this.rows = new RowList(`rows-cosmos-${name}`, 'reads', {
      rewrite: (key) => this.writes.run(() => writes.rewrite(String(key))),
      remove: (key) => this.writes.run(() => writes.remove(String(key))),
    })
    this.count = h('span', { class: 'count', 'data-testid': `count-cosmos-${name}` }, '0')
    this.el = h('section', { class: 'column cosmos-side', 'data-testid': `cosmos-${name}` },
      h('h4', {}, title, this.count), note, this.writes.form, this.writes.error, this.rows.el)
  }

  /** Shows what the side holds now: live items, each with its expiry. */
  show(items: { item: DemoItem; expiresAt: number | undefined }[], defaultTtl: DefaultTtl): void {
    const rows: RowData[] = items.map(({ item, expiresAt }) => ({ key: item.id!, item, live: true, expiresAt }))
    this.rows.update(rows, defaultTtl, false)
    setText(this.count, fmt.format(items.length))
  }

  frame(now: number): void {
    this.rows.frame(now)
  }
}
