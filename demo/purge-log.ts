/**
 * Section 4, left: what the purge worker reports, newest first, and a progress bar for a big
 * purge (deleted so far against what is still expired on disk).
 */
import type { PurgeReport } from '../src/index.js'
import { clockTime, fmt, h, setText } from './dom.js'

const KEPT = 150
const WAVE_END_MS = 3000
/** Smaller waves are over too fast for a progress bar to mean anything. */
const WAVE_SHOWN = 50

export class PurgeLog {
  readonly el: HTMLElement
  private readonly list: HTMLOListElement
  private readonly summary: HTMLElement
  private readonly progress: HTMLProgressElement
  private readonly progressText: HTMLElement
  private readonly progressBox: HTMLElement
  private readonly who: HTMLElement
  private totalDeleted = 0
  private totalEvicted = 0
  /** Items deleted so far, per store. */
  private readonly byStore = new Map<string, number>()
  private reports = 0
  /**
   * A wave of purging: from the first expired item seen on disk (or the first deletion) until
   * nothing expired has been on disk for {@link WAVE_END_MS}. Expiries land on whole seconds, so
   * a big load expires in bursts; one wave spans them all.
   */
  private wave = { deleted: 0, active: false, lastSeen: 0 }

  constructor() {
    this.list = h('ol', { class: 'log', 'data-testid': 'purge-log' })
    this.summary = h('p', { class: 'summary', 'data-testid': 'purge-summary' }, 'Nothing purged yet: the worker reports each slice that deletes something.')
    this.progress = h('progress', { max: 1, value: 0, 'data-testid': 'purge-progress' })
    this.progressText = h('span', { class: 'status' })
    this.progressBox = h('div', { class: 'purge-progress', hidden: true }, h('span', { class: 'label' }, 'Purge'), this.progress, this.progressText)
    this.who = h('p', { class: 'who', 'data-testid': 'purger' })
    this.el = h('div', { class: 'purge-log' }, this.who, this.summary, this.progressBox, this.list)
  }

  add(report: PurgeReport): void {
    this.reports++
    const evicted = report.evicted ?? 0
    this.totalDeleted += report.deleted
    this.totalEvicted += evicted
    this.wave.active = true
    this.wave.lastSeen = Date.now()
    // The wave's bar counts expired items; evicted ones were live.
    this.wave.deleted += report.deleted - evicted
    const entry = h('li', { class: report.error ? 'entry failed' : 'entry', 'data-testid': 'purge-entry', 'data-store': report.store, 'data-deleted': report.deleted },
      h('span', { class: 'time' }, clockTime(Date.now())),
      h('span', { class: 'store-name' }, report.store),
      h('span', { class: 'deleted' }, `${fmt.format(report.deleted)} deleted`),
      h('span', { class: 'ms' }, `${report.durationMs.toFixed(1)} ms`),
      evicted ? h('span', { class: 'tag evicted' }, `${fmt.format(evicted)} evicted`) : null,
      report.more ? h('span', { class: 'tag' }, 'more to do') : null,
      report.error ? h('span', { class: 'err' }, `${report.error.name}: ${report.error.message}`) : null)
    this.list.prepend(entry)
    while (this.list.children.length > KEPT) this.list.lastElementChild?.remove()
    const deleted = (this.byStore.get(report.store) ?? 0) + report.deleted
    this.byStore.set(report.store, deleted)
    this.summary.setAttribute(`data-deleted-${report.store}`, String(deleted))
    const ofThem = this.totalEvicted ? ` (${fmt.format(this.totalEvicted)} of them evicted)` : ''
    const stores = [...this.byStore].filter(([, n]) => n > 0).map(([store, n]) => `${store} ${fmt.format(n)}`).join(' · ')
    setText(this.summary, `${fmt.format(this.totalDeleted)} items purged${ofThem} in ${fmt.format(this.reports)} purge reports: ${stores}`)
  }

  /** Only one tab purges (it holds a Web Lock); the others get no reports, and say so. */
  purger(isPurger: boolean): void {
    this.el.dataset.purger = String(isPurger)
    setText(this.who, isPurger ? 'This tab runs the purge worker.' : 'Another tab of this demo runs the purge (one purger per database); its reports show there.')
  }

  /** Called after every refresh with how many expired items still sit on disk. */
  expiredOnDisk(dead: number, now = Date.now()): void {
    const wave = this.wave
    if (dead > 0) {
      wave.active = true
      wave.lastSeen = now
    } else if (wave.active && now - wave.lastSeen > WAVE_END_MS) {
      this.wave = { deleted: 0, active: false, lastSeen: 0 }
      this.progressBox.hidden = true
      return
    }
    if (!wave.active) return
    const total = wave.deleted + dead
    this.progressBox.hidden = total < WAVE_SHOWN
    this.progress.max = Math.max(total, 1)
    this.progress.value = wave.deleted
    setText(this.progressText, dead > 0
      ? `${fmt.format(wave.deleted)} of ${fmt.format(total)} expired items deleted · ${fmt.format(dead)} waiting`
      : `${fmt.format(wave.deleted)} expired items deleted · none waiting`)
  }
}
