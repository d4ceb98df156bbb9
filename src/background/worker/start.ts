/**
 * The purge worker's start, apart from the rest of `background/`: the entries that purge in a
 * worker import it (`open-page.ts`), and `idb-ttl/service-worker` does not, so that its bundle
 * carries no worker file.
 */
import type { StartWorker } from '../background.js'
import { WATCHDOG_MS, WorkerPurger } from './client.js'

export const startPurgeWorker: StartWorker = (config, inline) => new WorkerPurger(config, WATCHDOG_MS, inline)
