/**
 * The purge worker's entry. It opens its own connection to the page's database (never creating
 * or upgrading it), which steps aside on `versionchange` like every connection of the library.
 */
import { expose } from 'comlink'
import { Connection } from '../connection.js'
import type { PurgeConfig } from './api.js'
import { createPurgeApi } from './purge-api.js'

/** The first message carries the config; every later one is a Comlink call. */
self.addEventListener(
  'message',
  (event: MessageEvent<PurgeConfig>) => {
    const config = event.data
    const connection = new Connection({ name: config.name, stores: config.stores, clock: Date.now, create: false })
    expose(createPurgeApi(config, () => connection.native(), () => connection.close()))
  },
  { once: true },
)
