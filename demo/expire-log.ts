/**
 * What one frame's `db.onExpire` listener heard: every expired item with its store, key, reason
 * and value as stored, newest first. The demo shows two of these, one per frame, each fed by
 * its own connection.
 */
import type { ExpireEvent } from '../src/index.js'
import { clockTime, fmt, h, setText } from './dom.js'

/** Items kept on screen; a bulk load expires thousands, and only the latest are worth reading. */
const KEPT = 120

/** Binary data shows as its size: an evicted cache item holds 20 kB that nobody wants to read. */
function binaryAsSize(_key: string, value: unknown): unknown {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `<${fmt.format(value.byteLength)} bytes>`
  return value
}

function showValue(value: unknown): string {
  try {
    return JSON.stringify(value, binaryAsSize) ?? String(value)
  } catch {
    return String(value)
  }
}

export class ExpireLog {
  readonly el: HTMLElement
  private readonly list: HTMLOListElement
  private readonly summary: HTMLElement
  private items = 0
  private events = 0

  constructor(title: string, testid = 'expire-log') {
    this.list = h('ol', { class: 'log expire-list', 'data-testid': testid })
    this.summary = h('p', { class: 'summary', 'data-testid': `${testid}-summary` }, 'Listening: nothing has expired yet.')
    this.el = h('div', { class: 'expire-log' }, h('h4', {}, title), this.summary, this.list)
  }

  add(event: ExpireEvent, receivedAt = Date.now()): void {
    this.events++
    this.items += event.items.length
    const time = clockTime(receivedAt)
    const entries = event.items.slice(-KEPT).map(({ key, value }) =>
      h('li', { class: 'entry', 'data-testid': 'expire-entry', 'data-store': event.store, 'data-key': String(key), 'data-reason': event.reason },
        h('span', { class: 'time' }, time),
        h('span', { class: 'store-name' }, event.store),
        h('span', { class: 'key' }, String(key)),
        h('span', { class: 'tag' }, event.reason),
        h('span', { class: 'value' }, showValue(value))))
    this.list.prepend(...entries.reverse())
    while (this.list.children.length > KEPT) this.list.lastElementChild?.remove()
    setText(this.summary, `${fmt.format(this.items)} items heard in ${fmt.format(this.events)} events`)
  }
}
