/**
 * Section 7, the writes the server refused (docs/cosmos.md, "Records the server refuses"): a
 * button that writes into the mirror an item over Cosmos DB's 2 MB limit, which the server
 * refuses for itself (413), then the list `sync.rejected()` gives, each write with the server's
 * answer and two buttons: Retry (`sync.retry(key)`: queued again as it was, refused again) and
 * Discard (`sync.discard(key)`: the server's copy, here none, becomes the local item again).
 */
import type { CosmosSync, Rejected, SyncStatus } from '../src/cosmos/index.js'
import { MIRROR_STORE, type DemoDB } from './database.js'
import { h, setText } from './dom.js'

/** Over the 2 MB an account takes (and the demo's proxy, in front of the embedded server). */
const TOO_BIG_BYTES = 2_200_000

export class RejectedPanel {
  readonly el: HTMLElement
  private readonly list = h('ul', { class: 'cosmos-rejected-list', 'data-testid': 'cosmos-rejected-list' })
  private readonly error = h('p', { class: 'error', role: 'alert' })
  private sync: CosmosSync | undefined
  private shown = -1
  private written = 0
  /** Counts the reads of the list: only the latest one is shown. */
  private reads = 0

  constructor(private readonly db: DemoDB) {
    this.el = h('section', { class: 'cosmos-rejected', 'data-testid': 'cosmos-rejected' },
      h('h4', {}, 'Set aside ', h('small', {}, 'sync.rejected()')),
      h('p', { class: 'hint' }, 'A write the server refuses for itself (over its 2 MB item limit, a unique-key clash, a body it cannot take) blocks nothing: it is set aside with the answer, and stays in the store, unpushed, until you retry or discard it.'),
      h('button', { type: 'button', 'data-testid': 'cosmos-too-big', onclick: () => void this.writeTooBig() }, 'Write an item over 2 MB'),
      this.error,
      this.list)
  }

  /** Shows the set-aside writes of `sync` from now on (the tenant switch starts a new one). */
  follow(sync: CosmosSync): () => void {
    this.sync = sync
    this.shown = -1
    return sync.onStatus((status) => void this.refresh(status))
  }

  private async writeTooBig(): Promise<void> {
    this.written++
    await this.run(() => this.db.put(MIRROR_STORE, { id: `too-big-${this.written}`, note: 'over the 2 MB limit', pad: 'x'.repeat(TOO_BIG_BYTES) }))
  }

  /** Reads the list again when the count of set-aside writes changed (or `force`). */
  private async refresh(status: SyncStatus, force = false): Promise<void> {
    const sync = this.sync
    if (!sync || (!force && status.rejected === this.shown)) return
    this.shown = status.rejected
    const read = ++this.reads
    const rejected = await sync.rejected()
    // A newer read, or a newer sync (the tenant switch), took over meanwhile.
    if (read === this.reads && sync === this.sync) this.list.replaceChildren(...rejected.map((record) => this.row(sync, record)))
  }

  private row(sync: CosmosSync, { key, op, status, message }: Rejected): HTMLElement {
    return h('li', { 'data-key': key, 'data-status': status },
      h('span', { class: 'key' }, key),
      h('span', { class: 'verdict-detail' }, `${op} refused: ${status} ${message}`),
      h('span', { class: 'cosmos-rejected-tools' },
        h('button', { type: 'button', 'data-testid': 'rejected-retry', onclick: () => void this.run(() => sync.retry(key)) }, 'Retry'),
        h('button', { type: 'button', 'data-testid': 'rejected-discard', onclick: () => void this.run(() => sync.discard(key)) }, 'Discard')))
  }

  /** Runs an action, shows its failure (a discard offline), and reads the list again. */
  private async run(action: () => Promise<unknown>): Promise<void> {
    try {
      await action()
      setText(this.error, '')
    } catch (error) {
      setText(this.error, `${(error as Error).name}: ${(error as Error).message}`)
    }
    if (this.sync) await this.refresh(this.sync.status, true)
  }
}
