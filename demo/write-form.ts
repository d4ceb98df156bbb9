/**
 * What a store panel (section 2) and a side of the Cosmos DB section (section 7) share: the add
 * form (a key where the items carry one, a note, a ttl typed as the playground reads it) and the
 * line that shows the last write's error.
 */
import { h, setText } from './dom.js'
import { parseTtlInput } from './ttl-input.js'

/** An item as the form builds it. */
export interface FormItem {
  id?: string
  note?: string
  ttl?: unknown
}

export interface WriteFormOptions {
  /** The suffix of the test ids: `key-…`, `note-…`, `ttl-…`, `add-…`, `error-…`. */
  id: string
  /** The key field's label and accessible name; absent: the store makes the keys, and the form has no key field. */
  key?: { label: string; ariaLabel: string }
  /** The first character of the keys the form makes up when none is typed. */
  keyPrefix: string
  /** The submit button's text. */
  submit: string
  write(item: FormItem): Promise<unknown>
  /** Called after every write, done or failed. */
  changed(): void
}

export class WriteForm {
  readonly form: HTMLFormElement
  /** The last write's error, as text; empty after a write that worked. */
  readonly error: HTMLElement
  private counter = 0

  /** `extra`: more controls at the end of the form. */
  constructor(private readonly options: WriteFormOptions, extra?: Node | null) {
    const { id, key, submit } = options
    this.error = h('p', { class: 'error', role: 'alert', 'data-testid': `error-${id}` })
    const keyInput = key ? h('input', { type: 'text', name: 'key', placeholder: 'auto', 'aria-label': key.ariaLabel, 'data-testid': `key-${id}`, spellcheck: 'false' }) : null
    const noteInput = h('input', { type: 'text', name: 'note', placeholder: 'optional', 'aria-label': 'note', 'data-testid': `note-${id}` })
    const ttlInput = h('input', { type: 'text', name: 'ttl', class: 'num', placeholder: 'absent', 'aria-label': 'ttl', 'data-testid': `ttl-${id}`, spellcheck: 'false' })
    this.form = h('form', { class: 'add-form', onsubmit: (event) => {
      event.preventDefault()
      const item: FormItem = {}
      if (keyInput) item.id = keyInput.value.trim() || this.autoKey()
      if (noteInput.value) item.note = noteInput.value
      const ttl = parseTtlInput(ttlInput.value)
      if (ttl !== undefined) item.ttl = ttl
      this.run(async () => {
        await options.write(item)
        // Not a key typed in the meantime, while this write was in flight.
        if (keyInput && keyInput.value.trim() === item.id) keyInput.value = ''
      })
    } },
      key && keyInput && h('label', {}, h('span', {}, key.label), keyInput),
      h('label', {}, h('span', {}, 'note'), noteInput),
      h('label', {}, h('span', {}, 'ttl'), ttlInput),
      h('button', { type: 'submit', class: 'primary', 'data-testid': `add-${id}` }, submit),
      extra)
  }

  /** Runs a write, shows its error (as text) or clears the last one, then calls `changed`. */
  run(action: () => Promise<unknown>): void {
    action().then(
      () => setText(this.error, ''),
      (error) => setText(this.error, errorText(error)),
    ).finally(() => this.options.changed())
  }

  private autoKey(): string {
    return `${this.options.keyPrefix}-${(Date.now() % 1e7).toString(36)}${(this.counter++).toString(36)}`
  }
}

/** An error as one line: its name, its `TtlError` code, its message. */
function errorText(error: unknown): string {
  const e = error as { name?: string; code?: unknown; message?: string }
  return [e?.name, e?.code].filter(Boolean).join(' ') + (e?.message ? `: ${e.message}` : '')
}
