/**
 * SPEC §11 db.transaction: the handle's calls in one IndexedDB transaction, every TTL rule at one
 * instant, all or nothing, events after the commit, and a clear error when the callback lets the
 * transaction end.
 */
import { describe, expect, test, vi } from 'vitest'
import type { ExpireEvent, TtlDB } from '../../src/index.js'
import { freshDB, manualClock, SOON } from '../helpers.js'
import { expectDomError, expectTtlError, rawGet, rawKeys, SECOND, T0 } from '../semantics/support.js'

const stores = {
  sessions: { keyPath: 'id', defaultTtl: 60, indexes: { byUser: { keyPath: 'user' } } },
  events: { keyPath: 'seq', autoIncrement: true, defaultTtl: -1 },
}

async function open(extra: Record<string, object> = {}) {
  const clock = manualClock(T0)
  const db: TtlDB<any> = await freshDB({ clock, stores: { ...stores, ...extra } })
  return { db, clock }
}

describe('all or nothing', () => {
  test('writes to two stores commit together, and the result is the callback’s', async () => {
    const { db } = await open()
    const result = await db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      await tx.put('sessions', { id: 'a', user: 'u1' })
      const seq = await tx.put('events', { user: 'u1', kind: 'login' })
      return { seq, seen: await tx.get('sessions', 'a') }
    })
    expect(result).toEqual({ seq: 1, seen: { id: 'a', user: 'u1', _ts: T0 / SECOND } })
    expect(await db.getAllKeys('sessions')).toEqual(['a'])
    expect(await db.getAll('events')).toEqual([{ seq: 1, user: 'u1', kind: 'login', _ts: T0 / SECOND }])
  })

  test('a failing request in one store undoes the other store’s writes, and the promise rejects with its error', async () => {
    const { db } = await open()
    await db.put('sessions', { id: 'a', user: 'u1' })
    const failed = db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      await tx.put('events', { kind: 'login' })
      await tx.add('sessions', { id: 'a', user: 'u2' }) // a live item holds the key
    })
    await expectDomError(failed, 'ConstraintError')
    expect(await rawKeys(db, 'events')).toEqual([])
    expect(await db.get('sessions', 'a')).toMatchObject({ user: 'u1' })
  })

  test('a request failure the callback catches still aborts the whole transaction', async () => {
    const { db } = await open()
    await db.put('sessions', { id: 'a', user: 'u1' })
    const failed = db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      await tx.put('events', { kind: 'login' })
      await tx.add('sessions', { id: 'a' }).catch(() => 'ignored')
      return 'done'
    })
    await expectDomError(failed, 'ConstraintError')
    expect(await rawKeys(db, 'events')).toEqual([])
  })

  test('a callback that throws writes nothing, and the promise rejects with what it threw', async () => {
    const { db } = await open()
    const boom = new Error('boom')
    const failed = db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.putAll('sessions', [{ id: 'a' }, { id: 'b' }])
      throw boom
    })
    await expect(failed).rejects.toBe(boom)
    expect(await rawKeys(db, 'sessions')).toEqual([])
  })

  test('bad input is the handle’s TtlError, naming the store; thrown out of the callback, nothing is written', async () => {
    const { db } = await open()
    const failed = db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.put('sessions', { id: 'a' })
      await tx.put('sessions', { id: 'b', ttl: 0 })
    })
    const error = await failed.catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_TTL' })
    expect((error as Error).message).toContain('store "sessions"')
    expect(await rawKeys(db, 'sessions')).toEqual([])
  })
})

describe('calls issued together', () => {
  test('two adds of one key that a dead item holds: the first claims it, the second is ConstraintError, the dead item is heard once', async () => {
    const { db, clock } = await open()
    await db.put('sessions', { id: 'a', ttl: 1 })
    clock.advance(2_000)
    const events: ExpireEvent[] = []
    db.onExpire((e) => events.push(e))
    const seen: PromiseSettledResult<unknown>[] = []
    await db.transaction('sessions', 'readwrite', async (tx) => {
      seen.push(...(await Promise.allSettled([tx.add('sessions', { id: 'a', v: 1 }), tx.add('sessions', { id: 'a', v: 2 })])))
    }).catch(() => {})
    expect(seen[0]).toEqual({ status: 'fulfilled', value: 'a' })
    expect(seen[1]).toMatchObject({ status: 'rejected', reason: { name: 'ConstraintError' } })
    // The refused add aborts the transaction as a failed request does: nothing of it is written.
    expect(await rawGet(db, 'sessions', 'a')).not.toHaveProperty('v')
    const committed = await db.transaction('sessions', 'readwrite', (tx) => Promise.all([tx.add('sessions', { id: 'a', v: 1 }), tx.put('sessions', { id: 'b' })]))
    expect(committed).toEqual(['a', 'b'])
    expect(await db.get('sessions', 'a')).toMatchObject({ v: 1 })
    await db.put('sessions', { id: 'flush' }) // events of the commit above are heard before this write's
    await vi.waitFor(() => expect(events.flatMap((e) => e.items.map((i) => i.key))).toEqual(['a']), SOON)
  })

  test('two updates of one item both apply, in the order they were called, as through the handle', async () => {
    const { db } = await open()
    await db.put('sessions', { id: 'a', n: 0, tags: [] })
    const results = await db.transaction('sessions', 'readwrite', (tx) =>
      Promise.all([
        tx.update('sessions', 'a', (v: any) => ({ ...v, n: v.n + 1, tags: [...v.tags, 'x'] })),
        tx.update('sessions', 'a', (v: any) => ({ ...v, n: v.n + 1, tags: [...v.tags, 'y'] })),
        tx.get('sessions', 'a'),
      ]),
    )
    expect(results.map((v: any) => v.n)).toEqual([1, 2, 2])
    expect(await db.get('sessions', 'a')).toMatchObject({ n: 2, tags: ['x', 'y'] })
  })

  test('a read issued together after a write sees it, one issued before does not', async () => {
    const { db } = await open()
    const seen = await db.transaction('sessions', 'readwrite', (tx) =>
      Promise.all([tx.count('sessions'), tx.put('sessions', { id: 'a' }), tx.count('sessions'), tx.get('sessions', 'a')]),
    )
    expect(seen).toEqual([0, 'a', 1, { id: 'a', _ts: T0 / SECOND }])
  })

  test('puts and deletes issued together go at once, and still every call sees exactly the calls before it', async () => {
    const { db } = await open()
    await db.put('sessions', { id: 'a', n: 0 })
    const seen = await db.transaction('sessions', 'readwrite', (tx) =>
      Promise.all([
        tx.get('sessions', 'a'),
        tx.put('sessions', { id: 'a', n: 1 }),
        tx.getAll('sessions'),
        tx.update('sessions', 'a', (v: any) => ({ ...v, n: v.n * 10 })),
        tx.put('sessions', { id: 'b', n: 2 }),
        tx.count('sessions'),
        tx.delete('sessions', 'a'),
        tx.get('sessions', 'a'),
        tx.putAll('sessions', [{ id: 'a', n: 3 }, { id: 'c', n: 4 }]),
        tx.getAll('sessions'),
      ]),
    )
    const ns = (items: any) => (items as { id: string; n: number }[]).map((v) => `${v.id}${v.n}`)
    expect((seen[0] as any).n).toBe(0)
    expect(ns(seen[2])).toEqual(['a1'])
    expect((seen[3] as any).n).toBe(10)
    expect(seen[5]).toBe(2)
    expect(seen[7]).toBeUndefined()
    expect(ns(seen[9])).toEqual(['a3', 'b2', 'c4'])
  })

  test('a putAll refused for one item (no key) writes none of them; caught, the transaction goes on and commits the rest', async () => {
    const { db } = await open()
    const result = await db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      const refused = await tx.putAll('sessions', [{ id: 'a' }, { id: 'b' }, { user: 'no id' }]).catch((e: unknown) => e)
      await tx.put('events', { kind: 'after' })
      return refused
    })
    expect(result).toMatchObject({ name: 'DataError' })
    expect((result as Error).message).toContain('store "sessions", item 2')
    expect(await rawKeys(db, 'sessions')).toEqual([])
    expect(await db.getAll('events')).toMatchObject([{ kind: 'after' }])
  })

  test('an invalid key, or a key given to a store with a key path, is refused before anything of the call is written', async () => {
    const { db } = await open({ loose: { defaultTtl: 60 } })
    const refused = await db.transaction(['sessions', 'loose'], 'readwrite', async (tx) => [
      await tx.putAll('sessions', [{ id: 'a' }, { id: { not: 'a key' } }]).catch((e: unknown) => e),
      await tx.put('sessions', { id: 'b' }, 'b').catch((e: unknown) => e),
      await tx.put('loose', { v: 1 }).catch((e: unknown) => e),
      await tx.put('loose', { v: 1 }, 'k'),
    ])
    expect(refused.slice(0, 3)).toMatchObject([{ name: 'DataError' }, { name: 'DataError' }, { name: 'DataError' }])
    expect(await rawKeys(db, 'sessions')).toEqual([])
    expect(await rawKeys(db, 'loose')).toEqual(['k'])
  })

  test('a put IndexedDB refuses at once (a value it cannot clone), caught, leaves the transaction going: nothing of it was made', async () => {
    const { db } = await open()
    const result = await db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      await tx.put('events', { kind: 'before' })
      const refused = await tx.put('sessions', { id: 'a', f: () => 1 }).catch((e: unknown) => e)
      const first = await tx.putAll('sessions', [{ id: 'b', f: () => 1 }, { id: 'c' }]).catch((e: unknown) => e)
      await tx.put('events', { kind: 'after' })
      return [refused, first]
    })
    expect(result).toMatchObject([{ name: 'DataCloneError' }, { name: 'DataCloneError' }])
    expect(await rawKeys(db, 'sessions')).toEqual([])
    expect((await db.getAll('events')).map((v: any) => v.kind)).toEqual(['before', 'after'])
  })

  test('a key path through a string’s length takes the key IndexedDB takes, as the handle does', async () => {
    const { db } = await open({ words: { keyPath: 'w.length', defaultTtl: 60 } })
    expect(await db.put('words', { w: 'abc' })).toBe(3)
    expect(await db.transaction('words', 'readwrite', (tx) => tx.put('words', { w: 'abcd' }))).toBe(4)
  })

  test('a value IndexedDB cannot clone, refused after items before it were written, aborts the transaction with its error', async () => {
    const { db } = await open()
    const failed = db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
      await tx.put('events', { kind: 'before' })
      const refused = await tx.putAll('sessions', [{ id: 'a' }, { id: 'b', f: () => 1 }]).catch((e: unknown) => e)
      expect(refused).toMatchObject({ name: 'DataCloneError' })
      await tx.put('events', { kind: 'after' })
    })
    await expectDomError(failed, 'DataCloneError')
    expect(await rawKeys(db, 'sessions')).toEqual([])
    expect(await rawKeys(db, 'events')).toEqual([])
  })
})

test('live queries hear a committed transaction once, and never an undone one', async () => {
  const { db } = await open()
  const seen: string[][] = []
  const off = db.live('sessions').subscribe((items) => seen.push(items.map((v: any) => v.id)))
  await vi.waitFor(() => expect(seen).toEqual([[]]), SOON)
  await expect(db.transaction('sessions', 'readwrite', async (tx) => {
    await tx.put('sessions', { id: 'undone' })
    throw new Error('undo')
  })).rejects.toThrow('undo')
  await db.transaction(['sessions', 'events'], 'readwrite', async (tx) => {
    await tx.putAll('sessions', [{ id: 'a' }, { id: 'b' }])
    await tx.put('events', { kind: 'x' })
  })
  await vi.waitFor(() => expect(seen).toEqual([[], ['a', 'b']]), SOON)
  off()
})

describe('one instant, every rule', () => {
  test('the clock is read once: every stamp and every judgement inside uses the start', async () => {
    const { db, clock } = await open()
    await db.put('sessions', { id: 'old', ttl: 5 })
    clock.advance(4_000)
    const seen = await db.transaction(['sessions'], 'readwrite', async (tx) => {
      clock.advance(10_000) // the item dies at 5 s by the clock, not for the transaction
      await tx.put('sessions', { id: 'new' })
      return tx.get('sessions', 'old')
    })
    expect(seen).toMatchObject({ id: 'old' })
    expect(await rawGet(db, 'sessions', 'new')).toMatchObject({ _ts: T0 / SECOND + 4 })
    expect(await db.get('sessions', 'old')).toBeUndefined()
  })

  test('expired items are invisible to every read inside, index reads and counts included', async () => {
    const { db, clock } = await open()
    await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 1 }, { id: 'b', user: 'u1' }])
    clock.advance(2_000)
    const seen = await db.transaction('sessions', 'readonly', async (tx) => ({
      get: await tx.get('sessions', 'a'),
      all: (await tx.getAll('sessions')).map((v) => v.id),
      keys: await tx.getAllKeys('sessions'),
      count: await tx.count('sessions'),
      first: (await tx.getFromIndex('sessions', 'byUser', 'u1'))?.id,
      byUser: (await tx.getAllFromIndex('sessions', 'byUser', 'u1')).map((v) => v.id),
      byUserKeys: await tx.getAllKeysFromIndex('sessions', 'byUser', 'u1'),
      byUserCount: await tx.countFromIndex('sessions', 'byUser', 'u1'),
    }))
    expect(seen).toEqual({ get: undefined, all: ['b'], keys: ['b'], count: 1, first: 'b', byUser: ['b'], byUserKeys: ['b'], byUserCount: 1 })
  })

  test('add and update judge holders by the settings in force: a dead holder is claimed, update of a dead item is NOT_FOUND', async () => {
    const { db, clock } = await open()
    await db.putAll('sessions', [{ id: 'a', ttl: 1 }, { id: 'b', ttl: 1 }, { id: 'c', ttl: 1 }])
    clock.advance(2_000)
    const events: ExpireEvent[] = []
    db.onExpire((e) => events.push(e))
    const undone = db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.add('sessions', { id: 'c', v: 1 }) // claims c, then the transaction is undone
      throw new Error('undo')
    })
    await expect(undone).rejects.toThrow('undo')
    await db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.add('sessions', { id: 'a', v: 2 })
      await expectTtlError(tx.update('sessions', 'b', { v: 2 }), 'NOT_FOUND')
    })
    // Only the committed claim is heard: the undone one never was.
    await vi.waitFor(() => expect(events).toMatchObject([{ store: 'sessions', reason: 'expired', items: [{ key: 'a' }] }]), SOON)
    expect(await db.get('sessions', 'a')).toMatchObject({ v: 2 })
    expect(await rawGet(db, 'sessions', 'c')).not.toHaveProperty('v')
  })

  test('update and touch restart the countdown at the transaction’s instant; a lowered default stays lowered', async () => {
    const { db, clock } = await open()
    await db.putAll('sessions', [{ id: 'a' }, { id: 'b' }])
    clock.advance(50_000)
    const item = await db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.touch('sessions', 'b')
      return tx.update('sessions', 'a', (v: any) => ({ ...v, n: 1 }))
    })
    expect(item).toEqual({ id: 'a', n: 1, _ts: T0 / SECOND + 50 })
    clock.advance(30_000)
    expect(await db.getAllKeys('sessions')).toEqual(['a', 'b'])
  })

  test('a write stamps above the watermark another tab’s default change left: never born dead', async () => {
    const { db } = await open()
    const ahead = manualClock(T0 + 3_600_000) // another tab whose clock runs an hour ahead
    const other: TtlDB<any> = await freshDB({ clock: ahead, stores }, db.raw.name)
    await db.put('sessions', { id: 'a' })
    await other.setDefaultTtl('sessions', 10) // everything stamped before its now - 10 s is dead
    await db.transaction('sessions', 'readwrite', (tx) => tx.put('sessions', { id: 'b' }))
    expect(await db.getAllKeys('sessions')).toEqual(['b'])
  })

  test('a keepTs store keeps the given _ts inside a transaction too (born dead when it is past)', async () => {
    const { db, clock } = await open({ mirror: { keyPath: 'id', defaultTtl: 10, keepTs: true } })
    clock.advance(60_000)
    await db.transaction('mirror', 'readwrite', (tx) => tx.putAll('mirror', [{ id: 'fresh', _ts: T0 / SECOND + 55 }, { id: 'stale', _ts: T0 / SECOND }]))
    expect(await db.getAll('mirror')).toEqual([{ id: 'fresh', _ts: T0 / SECOND + 55 }])
  })

  test('touchOnRead: a read inside restarts the countdown', async () => {
    const { db, clock } = await open({ slide: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } })
    await db.put('slide', { id: 'a' })
    clock.advance(8_000)
    expect(await db.transaction('slide', 'readonly', (tx) => tx.get('slide', 'a'))).toMatchObject({ _ts: T0 / SECOND + 8 })
    clock.advance(8_000) // 16 s after the write, 8 after the read
    expect(await db.get('slide', 'a')).toMatchObject({ id: 'a' })
  })

  test('a capped store is trimmed by the purge after a transaction overfilled it', async () => {
    const { db } = await open({ capped: { keyPath: 'id', defaultTtl: -1, maxEntries: 2 } })
    await db.transaction('capped', 'readwrite', (tx) => tx.putAll('capped', [{ id: 1 }, { id: 2 }, { id: 3 }]))
    expect(await db.purgeExpired('capped')).toBe(1)
    expect(await db.count('capped')).toBe(2)
  })
})

describe('misuse', () => {
  test('a call after the callback awaited something else is TRANSACTION_INACTIVE; what came before committed', async () => {
    const { db } = await open()
    let heard: unknown
    const failed = db.transaction('sessions', 'readwrite', async (tx) => {
      await tx.put('sessions', { id: 'a' })
      await new Promise((resolve) => tx.raw.addEventListener('complete', resolve)) // awaits something else: IndexedDB commits
      heard = await tx.put('sessions', { id: 'b' }).catch((e: unknown) => e)
    })
    await expectTtlError(failed, 'TRANSACTION_INACTIVE')
    expect(heard).toMatchObject({ name: 'TtlError', code: 'TRANSACTION_INACTIVE' })
    expect(await db.getAllKeys('sessions')).toEqual(['a'])
  })

  test('a store the transaction does not name, or one not declared, is UNKNOWN_STORE', async () => {
    const { db } = await open()
    await expectTtlError(db.transaction('sessions', 'readonly', (tx) => tx.get('events' as 'sessions', 1)), 'UNKNOWN_STORE')
    await expectTtlError(db.transaction(['nope'], 'readonly', () => 1), 'UNKNOWN_STORE')
  })

  test('bad arguments are INVALID_OPTION; an evictOnQuota store is UNSUPPORTED', async () => {
    const { db } = await open({ big: { keyPath: 'id', evictOnQuota: true } })
    await expectTtlError(db.transaction([], 'readonly', () => 1), 'INVALID_OPTION')
    await expectTtlError(db.transaction('sessions', 'versionchange' as 'readonly', () => 1), 'INVALID_OPTION')
    await expectTtlError(db.transaction('sessions', 'readonly', undefined as never), 'INVALID_OPTION')
    await expectTtlError(db.transaction(['sessions', 'big'], 'readwrite', () => 1), 'UNSUPPORTED')
  })

  test('a write in a readonly transaction is IndexedDB’s ReadOnlyError, and nothing is written', async () => {
    const { db } = await open()
    await expectDomError(db.transaction('sessions', 'readonly', (tx) => (tx as any).put('sessions', { id: 'a' })), 'ReadOnlyError')
    expect(await rawKeys(db, 'sessions')).toEqual([])
  })

  test('after close, a transaction is CLOSED', async () => {
    const { db } = await open()
    db.close()
    await expectTtlError(db.transaction('sessions', 'readonly', () => 1), 'CLOSED')
  })
})
