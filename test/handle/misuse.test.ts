/**
 * Mistakes a new user makes at open and after close (#22): each gets an error that names what
 * was wrong and where, and writes nothing. In plain JavaScript nothing stops a misspelled option,
 * so the checks are at run time.
 */
import { deleteDB, openDB } from 'idb'
import { expect, test } from 'vitest'
import { openTtlDB, type OpenTtlDBOptions, type TtlError } from '../../src/index.js'
import { freshDB, uniqueName } from '../helpers.js'

async function openError(options: unknown): Promise<TtlError> {
  const name = uniqueName('misuse')
  try {
    const db = await openTtlDB(name, options as OpenTtlDBOptions)
    db.close()
    throw new Error('openTtlDB resolved')
  } catch (error) {
    return error as TtlError
  } finally {
    // Nothing was created: a rejected open leaves no database behind.
    expect((await indexedDB.databases()).map((db) => db.name)).not.toContain(name)
  }
}

test('a misspelled store option is refused, naming the store and the option it resembles', async () => {
  const error = await openError({ version: 1, purge: { mode: 'off' }, stores: { sessions: { keyPath: 'id', defaultTTL: 60 } } })
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION' })
  expect(error.message).toBe('store "sessions": unknown option "defaultTTL"; did you mean defaultTtl?')
})

test('unknown options of openTtlDB, purge and an index are refused, each naming where', async () => {
  const stores = { s: { keyPath: 'id' } }
  expect((await openError({ version: 1, stores, clok: Date.now })).message).toBe('openTtlDB: unknown option "clok"; did you mean clock?')
  expect((await openError({ version: 1, stores, purge: { mode: 'off', batchsize: 10 } })).message).toBe(
    'purge: unknown option "batchsize"; did you mean batchSize?',
  )
  const index = await openError({ version: 1, stores: { s: { keyPath: 'id', indexes: { byUser: { keyPath: 'user', uniqe: true } } } } })
  expect(index.message).toBe('index "byUser" of store "s": unknown option "uniqe"; did you mean unique?')
  const far = await openError({ version: 1, stores: { s: { keyPath: 'id', colour: 'red' } } })
  expect(far.message).toContain('store "s": unknown option "colour"; known options: keyPath, autoIncrement, defaultTtl')
})

test('an invalid defaultTtl at open names its store', async () => {
  const error = await openError({ version: 1, stores: { prefs: { keyPath: 'id' }, sessions: { keyPath: 'id', defaultTtl: 0 } } })
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_TTL' })
  expect(error.message).toMatch(/^store "sessions": defaultTtl must be null, -1 or an integer from 1 to 2147483647; got 0/)
})

test('opening with a version below the one on disk is a VersionError that names the database and says what to do', async () => {
  const name = uniqueName('misuse-version')
  const newer = await openDB(name, 3)
  newer.close()
  const opened = openTtlDB(name, { version: 2, purge: { mode: 'off' }, stores: { s: { keyPath: 'id' } } })
  const error = (await opened.then((db) => db.close(), (e: unknown) => e)) as DOMException
  expect(error).toBeInstanceOf(DOMException)
  expect(error.name).toBe('VersionError')
  expect(error.message).toContain(`openTtlDB("${name}", { version: 2 }): the database on disk has a higher version`)
  await deleteDB(name)
})

test('onPurge with something other than a function is refused, not kept to fail later', async () => {
  const db = await freshDB({ stores: { s: { keyPath: 'id' } } })
  expect(() => db.onPurge('log' as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: 'onPurge needs a function to call; got a string' }))
})

test('after close(), db.raw and onPurge refuse with CLOSED instead of handing out a closing connection', async () => {
  const db = await freshDB({ stores: { s: { keyPath: 'id' } } })
  expect(db.raw.name).toBeTypeOf('string')
  db.close()
  expect(() => db.raw).toThrow(expect.objectContaining({ name: 'TtlError', code: 'CLOSED' }))
  expect(() => db.onPurge(() => {})).toThrow(expect.objectContaining({ name: 'TtlError', code: 'CLOSED' }))
})
