/**
 * The database's bus (src/platform/bus.ts): one channel per database and realm carries every
 * topic; a message reaches every other member, here and in other realms, never its sender; a
 * member that left posts nothing, so a handle closed mid-write cannot fail that write.
 */
import { deleteDB, openDB, unwrap } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { joinBus, type Member } from '../../src/platform/bus.js'
import { SOON, uniqueName } from '../helpers.js'

declare module '../../src/platform/bus.js' {
  interface BusTopics {
    'test-topic': { n: number }
  }
}

const members: Member[] = []
const channels: BroadcastChannel[] = []
afterEach(() => {
  members.splice(0).forEach((member) => member.leave())
  channels.splice(0).forEach((channel) => channel.close())
})

function member(dbName: string): Member & { heard: number[] } {
  const joined = Object.assign(joinBus(dbName), { heard: [] as number[] })
  members.push(joined.on('test-topic', (message) => joined.heard.push(message.n)))
  return joined
}

test('a message reaches the other members of the realm and other realms, never its sender', async () => {
  const name = uniqueName('bus')
  const [a, b] = [member(name), member(name)]
  const unrelated = member(uniqueName('bus-other'))
  // Another realm: its copy of the library has a channel of its own under the database's name.
  const otherRealm = new BroadcastChannel(`idb-ttl:${name}`)
  channels.push(otherRealm)
  const received: unknown[] = []
  otherRealm.onmessage = (event) => received.push(event.data)

  a.post('test-topic', { n: 1 })
  await vi.waitFor(() => expect(received).toEqual([{ topic: 'test-topic', message: { n: 1 } }]), SOON)
  await vi.waitFor(() => expect(b.heard).toEqual([1]), SOON)
  otherRealm.postMessage({ topic: 'test-topic', message: { n: 2 } })
  await vi.waitFor(() => expect(a.heard).toEqual([2]), SOON)
  await vi.waitFor(() => expect(b.heard).toEqual([1, 2]), SOON)
  // A sender never hears itself: b's 3 reaches every member of the realm in one pass, so once a
  // has it (and 4, from the other realm), b would have it too. Order between realms is not kept.
  b.post('test-topic', { n: 3 })
  otherRealm.postMessage({ topic: 'test-topic', message: { n: 4 } })
  await vi.waitFor(() => expect([...a.heard].sort()).toEqual([2, 3, 4]), SOON)
  await vi.waitFor(() => expect(b.heard).toEqual([1, 2, 4]), SOON)
  expect(received).toEqual([{ topic: 'test-topic', message: { n: 1 } }, { topic: 'test-topic', message: { n: 3 } }])
  expect(unrelated.heard).toEqual([])
})

test('a member that left neither posts nor hears, and the others go on', async () => {
  const name = uniqueName('bus-leave')
  const [a, b, c] = [member(name), member(name), member(name)]
  b.leave()
  expect(() => b.post('test-topic', { n: 1 })).not.toThrow()
  a.post('test-topic', { n: 2 })
  c.post('test-topic', { n: 3 })
  await vi.waitFor(() => expect(c.heard).toEqual([2]), SOON)
  await vi.waitFor(() => expect(a.heard).toEqual([3]), SOON)
  expect(b.heard).toEqual([])
})

test('a write whose transaction commits while close() runs resolves, and is on disk', async () => {
  // The wake that follows a committed write used to go out on a channel close() had closed:
  // "InvalidStateError: BroadcastChannel is closed", for a write that was on disk.
  const name = uniqueName('close-at-commit')
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'inline' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  await db.count('s')
  const proto = Object.getPrototypeOf(unwrap(db.raw)) as IDBDatabase
  const transaction = proto.transaction
  proto.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
    const tx = transaction.apply(this, args)
    if (args[1] === 'readwrite') tx.addEventListener('complete', () => db.close())
    return tx
  } as IDBDatabase['transaction']
  try {
    await expect(db.put('s', { id: 'a' })).resolves.toBe('a')
  } finally {
    proto.transaction = transaction
  }
  const raw = await openDB(name)
  expect(await raw.get('s', 'a')).toMatchObject({ id: 'a' })
  raw.close()
  await deleteDB(name)
})
