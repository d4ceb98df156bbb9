// Issue #44: the words of the refusals an open's checks make (src/rules/texts.ts) are loaded only
// when a check fails: the error is thrown at once with its code, and the open fills its text in
// before it rejects (src/rules/refusal.ts). Counted here through the loader the entries hand in.
import { expect, test } from 'vitest'
import { chunks } from '../lazy/loaders.js'
import { inlineBackground } from '../../src/background/inline.js'
import * as texts from '../../src/rules/texts.js'
import { explain, refuse } from '../../src/rules/refusal.js'
import { TtlError } from '../../src/rules/errors.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { uniqueName } from '../helpers.js'

function counted(failure?: unknown) {
  const c = chunks()
  if (failure !== undefined) c.texts.failNext(failure)
  const loads = { get texts() { return c.texts.loads } }
  const open = (options: Partial<OpenTtlDBOptions>) => c.open(uniqueName(), options, inlineBackground)
  /** The error an open rejects with (an open that succeeds fails the test). */
  const refusal = (options: Partial<OpenTtlDBOptions>) =>
    open(options).then(
      () => expect.unreachable('the open should have been refused'),
      (error: unknown) => error as TtlError,
    )
  return { loads, open, refusal }
}

test('an open whose checks pass loads no texts; a refused one loads them and rejects with the whole message, in its stack too where the engine writes it there (V8)', async () => {
  const { loads, open, refusal } = counted()
  const db = await open({})
  db.close()
  expect(loads.texts).toBe(0)
  const error = await refusal({ stores: { s: { keyPath: 'id', mirror: 'yes' } } as never })
  expect(error).toBeInstanceOf(TtlError)
  expect(error.code).toBe('INVALID_OPTION')
  expect(error.message).toBe('store "s": mirror must be true or false; got yes')
  // V8 writes `name: message` into the stack when the error is made (the console shows that line);
  // Firefox and WebKit write the frames only, which hold no message to fill in.
  if (/^TtlError: /.test(error.stack ?? '')) expect(error.stack).toMatch(/^TtlError: store "s": mirror must be true or false; got yes\n/)
  else expect(error.stack).not.toMatch(/^TtlError: /)
  expect(loads.texts).toBe(1)
  const unknown = await refusal({ purge: { mode: 'off', batchsize: 10 } as never })
  expect(unknown.message).toBe('purge: unknown option "batchsize"; did you mean batchSize?')
})

test('a refusal whose texts cannot be loaded still rejects with its code, named by its key', async () => {
  const { refusal } = counted(new TypeError('Failed to fetch dynamically imported module'))
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
