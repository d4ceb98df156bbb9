// Issue #44: the words of the refusals an open's checks make (src/rules/texts.ts) are loaded only
// when a check fails: the error is thrown at once with its code, and the open fills its text in
// before it rejects (src/rules/refusal.ts). Counted here through the loader the entries hand in.
import * as staleReads from '../../src/reads/stale.js'
import * as touchWork from '../../src/reads/touch.js'
import * as follow from '../../src/live/follow.js'
import { expect, test } from 'vitest'
import { inlineBackground } from '../../src/background/inline.js'
import * as storageWatch from '../../src/handle/storage-watch.js'
import * as storageWork from '../../src/handle/storage-work.js'
import * as upgradeWork from '../../src/layout/upgrade.js'
import * as reliefSteps from '../../src/purge/relief.js'
import * as transactions from '../../src/transaction/run.js'
import * as texts from '../../src/rules/texts.js'
import * as stashedWrites from '../../src/writes/stashed-writes.js'
import { dropGenerationsOf } from '../../src/generations/stash.js'
import { openFull } from '../../src/assembly/open-full.js'
import { explain, refuse } from '../../src/rules/refusal.js'
import { TtlError } from '../../src/rules/errors.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { uniqueName } from '../helpers.js'

function counted(load: () => Promise<typeof texts> = () => Promise.resolve(texts)) {
  const loads = { texts: 0 }
  const loaders = {
    upgrade: () => Promise.resolve(upgradeWork),
    storage: () => Promise.resolve(storageWork),
    watch: () => Promise.resolve(storageWatch),
    relief: () => Promise.resolve(reliefSteps),
    transactions: () => Promise.resolve(transactions),
    texts: () => (loads.texts++, load()),
    stashWork: () => Promise.resolve({ ...stashedWrites, dropGenerationsOf }),
    stale: () => Promise.resolve(staleReads),
    touches: () => Promise.resolve(touchWork),
    follow: () => Promise.resolve(follow),
  }
  const open = (options: Partial<OpenTtlDBOptions>) =>
    openFull(uniqueName(), { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } }, ...options } as OpenTtlDBOptions, inlineBackground, loaders)
  /** The error an open rejects with (an open that succeeds fails the test). */
  const refusal = (options: Partial<OpenTtlDBOptions>) =>
    open(options).then(
      () => expect.unreachable('the open should have been refused'),
      (error: unknown) => error as TtlError,
    )
  return { loads, open, refusal }
}

test('an open whose checks pass loads no texts; a refused one loads them and rejects with the whole message, in its stack too', async () => {
  const { loads, open, refusal } = counted()
  const db = await open({})
  db.close()
  expect(loads.texts).toBe(0)
  const error = await refusal({ stores: { s: { keyPath: 'id', mirror: 'yes' } } as never })
  expect(error).toBeInstanceOf(TtlError)
  expect(error.code).toBe('INVALID_OPTION')
  expect(error.message).toBe('store "s": mirror must be true or false; got yes')
  expect(error.stack).toContain('store "s": mirror must be true or false; got yes')
  expect(loads.texts).toBe(1)
  const unknown = await refusal({ purge: { mode: 'off', batchsize: 10 } as never })
  expect(unknown.message).toBe('purge: unknown option "batchsize"; did you mean batchSize?')
})

test('a refusal whose texts cannot be loaded still rejects with its code, named by its key', async () => {
  const { refusal } = counted(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module')))
  const error = await refusal({ ttlValues: 'loose' as never })
  expect(error).toBeInstanceOf(TtlError)
  expect(error.code).toBe('INVALID_OPTION')
  expect(error.message).toBe('ttlValues')
})

test('explain leaves any other error as it is', async () => {
  const plain = new TtlError('INVALID_TTL', 'as thrown')
  await expect(explain(plain, () => Promise.resolve(texts))).rejects.toBe(plain)
  expect(plain.message).toBe('as thrown')
  const refused = refuse('INVALID_OPTION', 'evict', 's', 'newest')
  await expect(explain(refused, () => Promise.resolve(texts))).rejects.toThrow("store \"s\": evict must be 'oldest' or 'soonest'; got newest")
})
