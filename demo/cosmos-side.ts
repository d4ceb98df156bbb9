/**
 * Section 7, one side: the container on the server, or its mirror in IndexedDB. A heading, an
 * add form (`id`, `note`, `ttl`), and the items with their countdowns (the rows of section 2,
 * demo/rows.ts): each side says how it writes, the panel says what it shows.
 */
import type { DefaultTtl } from '../src/index.js'
import { fmt, h, setText } from './dom.js'
import type { DemoItem } from './database.js'
import { RowList, type RowData } from './rows.js'
import { parseTtlInput } from './ttl-input.js'

/** How a side writes: on the server through the SDK, or locally through the store. */
export interface SideWrites {
  put(item: { id: string; note?: string; ttl?: unknown }): Promise<unknown>
  /** Writes the item again as it is: a new `_ts`, its countdown restarts. */
  rewrite(id: string): Promise<unknown>
  remove(id: string): Promise<unknown>
}

export type SideName = 'server' | 'mirror'

function message(error: unknown): string {
  const e = error as { name?: string; code?: unknown; message?: string }
  return [e?.name, e?.code].filter(Boolean).join(' ') + (e?.message ? `: ${e.message}` : '')
}

export class CosmosSide {
  readonly el: HTMLElement
  private readonly rows: RowList
  private readonly count: HTMLElement
  private readonly error: HTMLElement
  private counter = 0

  constructor(readonly name: SideName, title: HTMLElement, note: HTMLElement, writes: SideWrites, private readonly changed: () => void) {
    this.rows = new RowList(`rows-cosmos-${name}`, 'reads', {
      rewrite: (key) => this.run(() => writes.rewrite(String(key))),
      remove: (key) => this.run(() => writes.remove(String(key))),
    })
    this.count = h('span', { class: 'count', 'data-testid': `count-cosmos-${name}` }, '0')
    this.error = h('p', { class: 'error', role: 'alert', 'data-testid': `error-cosmos-${name}` })
    const idInput = h('input', { type: 'text', name: 'key', placeholder: 'auto', 'aria-label': 'id', 'data-testid': `key-cosmos-${name}`, spellcheck: 'false' })
    const noteInput = h('input', { type: 'text', name: 'note', placeholder: 'optional', 'aria-label': 'note', 'data-testid': `note-cosmos-${name}` })
    const ttlInput = h('input', { type: 'text', name: 'ttl', class: 'num', placeholder: 'absent', 'aria-label': 'ttl', 'data-testid': `ttl-cosmos-${name}`, spellcheck: 'false' })
    const form = h('form', { class: 'add-form', onsubmit: (event) => {
      event.preventDefault()
      const item: { id: string; note?: string; ttl?: unknown } = { id: idInput.value.trim() || this.autoId() }
      if (noteInput.value) item.note = noteInput.value
      const ttl = parseTtlInput(ttlInput.value)
      if (ttl !== undefined) item.ttl = ttl
      this.run(async () => {
        await writes.put(item)
        if (idInput.value.trim() === item.id) idInput.value = ''
      })
    } },
      h('label', {}, h('span', {}, 'id'), idInput),
      h('label', {}, h('span', {}, 'note'), noteInput),
      h('label', {}, h('span', {}, 'ttl'), ttlInput),
      h('button', { type: 'submit', class: 'primary', 'data-testid': `add-cosmos-${name}` }, 'Write'))
    this.el = h('section', { class: 'column cosmos-side', 'data-testid': `cosmos-${name}` },
      h('h4', {}, title, this.count), note, form, this.error, this.rows.el)
  }

  private autoId(): string {
    return `${this.name[0]}-${(Date.now() % 1e7).toString(36)}${(this.counter++).toString(36)}`
  }

  /** Runs a write, shows its error (as text) or clears the last one, then asks for a refresh. */
  private run(action: () => Promise<unknown>): void {
    action().then(
      () => setText(this.error, ''),
      (error) => setText(this.error, message(error)),
    ).finally(() => this.changed())
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
