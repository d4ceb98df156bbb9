/** Section 4, "Add 10,000 events with short TTLs": written in chunks so the page keeps painting a progress bar. */
import { fmt, h, setText } from './dom.js'
import type { DemoDB } from './database.js'

const TOTAL = 10_000
const CHUNK = 500
const MIN_TTL = 5
const MAX_TTL = 20

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve)))

export function bulkControl(db: DemoDB, changed: () => void): HTMLElement {
  const bar = h('progress', { max: TOTAL, value: 0, 'data-testid': 'bulk-progress' })
  const status = h('span', { class: 'status', 'data-testid': 'bulk-status' })
  const button = h('button', { type: 'button', 'data-testid': 'add-10000', onclick: () => void run() },
    `Add ${fmt.format(TOTAL)} events with short TTLs`)
  const el = h('div', { class: 'bulk' }, button, h('span', { class: 'hint' }, `ttl ${MIN_TTL}–${MAX_TTL} s each`), bar, status)
  el.dataset.state = 'idle'

  async function run(): Promise<void> {
    button.disabled = true
    el.dataset.state = 'running'
    const started = performance.now()
    try {
      for (let done = 0; done < TOTAL; done += CHUNK) {
        const values = Array.from({ length: Math.min(CHUNK, TOTAL - done) }, (_, i) => ({
          note: `bulk #${done + i + 1}`,
          ttl: MIN_TTL + Math.floor(Math.random() * (MAX_TTL - MIN_TTL + 1)),
        }))
        await db.putAll('events', values)
        bar.value = done + values.length
        setText(status, `${fmt.format(done + values.length)} / ${fmt.format(TOTAL)} written`)
        changed()
        await nextFrame()
      }
      setText(status, `${fmt.format(TOTAL)} written in ${Math.round(performance.now() - started)} ms; watch them expire and get purged`)
    } catch (error) {
      setText(status, `failed: ${(error as Error).message}`)
    } finally {
      button.disabled = false
      el.dataset.state = 'done'
    }
  }
  return el
}
