/** The status a UI shows: what the mirror is doing, with counts, to every listener, on every change. */
import { describeError } from '../rules/errors.js'
import type { SyncState, SyncStatus } from './types.js'

export class StatusBoard {
  private current: SyncStatus = { state: 'idle', pending: 0, pulled: 0, pushed: 0, rejected: 0 }
  private readonly listeners = new Set<(status: SyncStatus) => void>()

  get status(): SyncStatus {
    return { ...this.current }
  }

  listen(listener: (status: SyncStatus) => void): () => void {
    this.listeners.add(listener)
    listener(this.status)
    return () => void this.listeners.delete(listener)
  }

  set(state: SyncState, counts: Partial<Omit<SyncStatus, 'state' | 'error'>> = {}, error?: unknown): void {
    const next: SyncStatus = { ...this.current, ...counts, state }
    if (error === undefined) delete next.error
    else next.error = describeError(error)
    const changed = (Object.keys({ ...next, ...this.current }) as (keyof SyncStatus)[]).some((field) => JSON.stringify(next[field]) !== JSON.stringify(this.current[field]))
    this.current = next
    // A listener hears a status only when something in it changed.
    if (!changed) return
    for (const listener of [...this.listeners]) {
      try {
        listener(this.status)
      } catch (thrown) {
        // A UI's bug must not stop a sync round: reported as any uncaught error would be.
        setTimeout(() => {
          throw thrown
        })
      }
    }
  }
}
