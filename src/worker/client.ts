/**
 * Page side of the purge worker: starts it lazily, wraps it with Comlink, and restarts it on the
 * next call after it crashed or was terminated. Pending calls of a dead worker reject.
 */
import { releaseProxy, wrap, type Remote } from 'comlink'
import type { PurgeApi, PurgeConfig } from './api.js'

export class WorkerPurger implements PurgeApi {
  private worker: Worker | undefined
  private remote: Remote<PurgeApi> | undefined
  private died: Promise<never> | undefined
  private kill: ((reason: Error) => void) | undefined

  constructor(private readonly config: PurgeConfig) {}

  private start(): { remote: Remote<PurgeApi>; died: Promise<never> } {
    if (!this.worker || !this.remote || !this.died) {
      const worker = new Worker(new URL('./purge-worker.ts', import.meta.url), { type: 'module', name: 'idb-ttl purge' })
      worker.postMessage(this.config)
      this.died = new Promise<never>((_, reject) => (this.kill = reject))
      this.died.catch(() => {})
      worker.addEventListener('error', (event) => {
        event.preventDefault()
        this.terminate(new Error(`purge worker failed: ${event.message}`))
      })
      this.worker = worker
      this.remote = wrap<PurgeApi>(worker)
    }
    return { remote: this.remote, died: this.died }
  }

  private call<T>(run: (remote: Remote<PurgeApi>) => Promise<T>): Promise<T> {
    const { remote, died } = this.start()
    return Promise.race([run(remote), died])
  }

  slice(nowMs: number) {
    return this.call((remote) => remote.slice(nowMs))
  }

  purgeAll(stores: string[], nowMs: number) {
    return this.call((remote) => remote.purgeAll(stores, nowMs))
  }

  /** Ends the worker at once; a batch it was running rolls back (each is one transaction). */
  terminate(reason = new Error('purge worker terminated')): void {
    const error = Object.assign(reason, { name: 'PurgeWorkerError' })
    this.remote?.[releaseProxy]()
    this.worker?.terminate()
    this.kill?.(error)
    this.worker = this.remote = this.died = this.kill = undefined
  }

  async close(): Promise<void> {
    this.terminate(new Error('purge worker closed'))
  }
}
