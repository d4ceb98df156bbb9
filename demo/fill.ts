/**
 * Section 4, "Fill the disk": writes items of 20 kB of random bytes (random, so no engine
 * compresses them away) to `cache` (`evictOnQuota`), one `put` at a time, and counts what was
 * written, what was refused, and what the library evicted to make room.
 */
import { fmt, h, setText } from './dom.js'
import type { DemoDB } from './database.js'

const ITEM_BYTES = 20_000
/** Writes between two painted frames. */
const PER_FRAME = 20

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve)))
const mb = (bytes = 0) => `${(bytes / 1e6).toFixed(1)} MB`

export function fillControl(db: DemoDB, total: number, changed: () => void): HTMLElement {
  const status = h('span', { class: 'status', 'data-testid': 'fill-status' })
  const button = h('button', { type: 'button', 'data-testid': 'fill-disk', onclick: () => void run() }, 'Fill the disk')
  const hint = h('p', { class: 'hint' },
    'To fill it for real, lower the quota: in Chromium, DevTools → Application → Storage → "Simulate custom storage quota"; ',
    'in Firefox, the pref dom.quotaManager.temporaryStorage.fixedLimit (in KB, set in about:config; restart Firefox). ',
    'At a small quota the cache keeps accepting writes by evicting its oldest items (in Chromium some can still be refused: ',
    'LevelDB gives deleted space back only when it compacts), while the other stores keep every item.')
  const el = h('div', { class: 'bulk fill-disk' }, button, h('span', { class: 'hint' }, `${fmt.format(total)} × 20 kB, ?fill=n to change`), status, hint)
  el.dataset.state = 'idle'

  async function run(): Promise<void> {
    button.disabled = true
    el.dataset.state = 'running'
    const counts = { written: 0, refused: 0, evicted: 0 }
    let lastError = ''
    const show = (tail = '') => {
      const refused = `${fmt.format(counts.refused)} refused${lastError && ` (last: ${lastError})`}`
      setText(status, `${fmt.format(counts.written)} written, ${refused}, ${fmt.format(counts.evicted)} evicted${tail}`)
    }
    const stop = db.onPurge((report) => {
      if (report.store === 'cache') counts.evicted += report.evicted ?? 0
    })
    // Short keys, so a row still has room for its note; new ones each run (rewriting would not fill).
    const batch = Math.floor(Date.now() / 1000).toString(36).slice(-4)
    try {
      for (let i = 0; i < total; i++) {
        const bytes = crypto.getRandomValues(new Uint8Array(ITEM_BYTES))
        try {
          await db.put('cache', { id: `${batch}-${String(i).padStart(String(total).length, '0')}`, note: '20 kB', bytes })
          counts.written++
        } catch (error) {
          counts.refused++
          lastError = (error as Error).name
        }
        if ((i + 1) % PER_FRAME === 0) {
          show()
          changed()
          await nextFrame()
        }
      }
      const estimate = await navigator.storage?.estimate?.().catch(() => undefined)
      show(estimate ? ` · storage ${mb(estimate.usage)} used of ${mb(estimate.quota)}` : '')
    } finally {
      stop()
      changed()
      button.disabled = false
      el.dataset.state = 'done'
    }
  }
  return el
}
