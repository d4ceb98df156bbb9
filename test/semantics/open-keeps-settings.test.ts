// The settings an open reads (to see whether its declaration changed) are the realm's copy when the
// realm held the settings lock from before that read (src/layout/held-settings.ts): the handle's
// first put and first get then read no settings. The lock is asked for as the open starts; a grant
// that comes after the read leaves no copy, and the first calls read the settings, as before.
// Where the grant comes is the browser's to decide: each test fixes it, by issuing the database's
// open only once the library was told of the grant, or by telling it only once the open resolved.
import { afterEach, expect, test } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { openTtlDB as openCore } from '../../src/core.js'
import { openDatabase } from '../../src/assembly/open.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { keepsSettings, lockName } from '../../src/layout/held-settings.js'
import { holdLock } from '../../src/platform/lock.js'
import { uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'
import { deleteAfter, scopes } from './support.js'

const stores = { s: { keyPath: 'id', defaultTtl: 100 } }
const undo: (() => void)[] = []
afterEach(() => undo.splice(0).reverse().forEach((restore) => restore()))

/**
 * Wraps `navigator.locks` so that the library's callback for the settings lock of `name` runs only
 * once `gate` resolves (the lock itself is granted as the browser decides); `told` resolves once
 * that callback ran.
 */
function settingsGrant(name: string, gate: Promise<void>): { told: Promise<void> } {
  undo.push(ensureLocks())
  const nav = navigator as Navigator & { locks: LockManager }
  const real = nav.locks
  let tell!: () => void
  const told = new Promise<void>((resolve) => (tell = resolve))
  const locks = {
    request(lock: string, options: LockOptions, callback: LockGrantedCallback<unknown>) {
      if (lock !== `idb-ttl:settings:${encodeURIComponent(name)}`) return real.request(lock, options, callback)
      return real.request(lock, options, async (granted) => {
        await gate
        const running = callback(granted)
        tell()
        return running
      })
    },
    query: () => real.query(),
  }
  Object.defineProperty(nav, 'locks', { value: locks, configurable: true })
  undo.push(() => Object.defineProperty(nav, 'locks', { value: real, configurable: true }))
  return { told }
}

/** Issues the opens of database `name` only once `before` resolved. */
function opensAfter(name: string, before: Promise<void>): void {
  const factory = indexedDB as IDBFactory & { open: IDBFactory['open'] }
  const open = factory.open
  Object.defineProperty(factory, 'open', {
    configurable: true,
    value(this: IDBFactory, database: string, version?: number) {
      if (database !== name) return open.call(this, database, version)
      // A request that succeeds as the real one does, issued later.
      const request = new EventTarget() as IDBOpenDBRequest & EventTarget
      void before.then(() => {
        const real = open.call(this, database, version)
        for (const type of ['success', 'error', 'upgradeneeded', 'blocked'] as const) {
          real.addEventListener(type, (event) => {
            Object.defineProperties(request, { result: { get: () => real.result }, error: { get: () => real.error }, transaction: { get: () => real.transaction } })
            const handler = (request as unknown as Record<string, ((e: Event) => void) | null>)[`on${type}`]
            handler?.call(request, event)
          })
        }
      })
      return request
    },
  })
  undo.push(() => delete (factory as Partial<IDBFactory>).open)
}

test.each([
  ['idb-ttl', openTtlDB],
  ['idb-ttl/core', openCore],
] as const)("%s: an open whose realm held the settings lock before it read the settings keeps them: the first put and get read none", async (_, open) => {
  const name = deleteAfter(uniqueName('open-keeps'))
  // Created first: the open under test reads the settings without an upgrade.
  ;(await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })).close()
  const { told } = settingsGrant(name, Promise.resolve())
  opensAfter(name, told)
  const db = await open(name, { version: 1, purge: { mode: 'off' }, stores })
  try {
    // Nor does the first write open a transaction to see whether the store keeps values in generations: the open's check saw.
    expect(await scopes(db, () => db.put('s', { id: 'a' }))).toEqual([['s']])
    const read = await scopes(db, () => db.get('s', 'a'))
    expect(read.flat()).not.toContain(META_STORE)
  } finally {
    db.close()
  }
})

test('an open whose realm is told of the lock only after it read the settings keeps no copy: the first put reads them', async () => {
  const name = deleteAfter(uniqueName('open-keeps'))
  ;(await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })).close()
  let open!: () => void
  const { told } = settingsGrant(name, new Promise<void>((resolve) => (open = resolve)))
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })
  try {
    open()
    await told
    expect(await scopes(db, () => db.put('s', { id: 'a' }))).toEqual([[META_STORE], ['s']])
  } finally {
    db.close()
  }
})

test('an open whose handle could not be made holds nothing of the database: its settings, bus and lock are let go', async () => {
  undo.push(ensureLocks())
  const name = deleteAfter(uniqueName('open-unmade'))
  ;(await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })).close()
  const failed = new Error('the handle could not be made')
  const never = () => Promise.reject(new Error('not loaded in this test'))
  // What holds the lock loads only once the open has failed (idb-ttl/core's import() may take that long).
  let loadLocks!: () => void
  const locksLoad = new Promise<void>((resolve) => (loadLocks = resolve)).then(() => ({ holdLock }))
  const loaders = { upgrade: never, options: never, storage: never, relief: never, texts: never, calls: never, locks: () => locksLoad }
  await expect(openDatabase(name, { version: 1, stores }, loaders, () => { throw failed })).rejects.toBe(failed)
  loadLocks()
  await locksLoad
  expect(keepsSettings(name)).toBe(false)
  // Asked at once: a request made for the handle no one holds would show, held or pending (the
  // grant lets go at once a lock of a database the realm no longer follows).
  const { held = [], pending = [] } = await navigator.locks.query()
  expect([...held, ...pending].map((lock) => lock.name)).not.toContain(lockName(name))
})
