/**
 * The purge worker's entry. It opens its own connection to the page's database (never creating
 * or upgrading it), which steps aside on `versionchange` like every connection of the library.
 */
import { expose } from 'comlink'
import { UserActivity } from '../activity.js'
import { Connection } from '../connection.js'
import type { PurgeConfig } from './api.js'
import { createPurgeApi } from './purge-api.js'

/**
 * The first message carries the config and a port on which the page signals its own requests;
 * every later message is a Comlink call.
 */
self.addEventListener(
  'message',
  (event: MessageEvent<PurgeConfig>) => {
    const config = event.data
    const activity = new UserActivity()
    event.ports[0].onmessage = () => activity.note()
    const connection = new Connection({ name: config.name, stores: config.stores, clock: Date.now, create: false, probe: true })
    expose(createPurgeApi(config, () => connection.native(), () => connection.close(), activity))
  },
  { once: true },
)
