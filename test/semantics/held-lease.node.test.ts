/**
 * A copy of the settings a realm holds (src/layout/held-settings.ts) is trusted for a lease at
 * most (`LEASE_MS`): a tab frozen in the background (or stopped in a debugger) hears neither the
 * call to let its copies go nor the end of its lock, which a change takes from it once it waited
 * that long. When it wakes, a read that runs before those queued events must not judge by the
 * copy. The frozen tab is a second realm of the library (vi.resetModules, Node only) whose
 * BroadcastChannel and settings lock hold their events back while it is frozen.
 */
import { expect, test, vi } from 'vitest'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { LEASE_MS } from '../../src/layout/held-settings.js'
import { manualClock, uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'
import { deleteAfter, T0, untilHeld } from './support.js'

const stores = { s: { keyPath: 'id', defaultTtl: 100 } }

/**
 * What a frozen tab hears of the world: nothing, until it wakes. While `install`ed, the channels
 * this realm opens and the settings locks it asks for deliver their events through the gate,
 * which holds them while `frozen` and lets them through, in a later task, at `thaw()`.
 */
function freezer() {
  let frozen = false
  const held: (() => void)[] = []
  const gate = (deliver: () => void) => (frozen ? held.push(deliver) : deliver())
  const Channel = globalThis.BroadcastChannel
  class FrozenChannel extends Channel {
    override set onmessage(listener: ((event: MessageEvent) => void) | null) {
      super.onmessage = listener && ((event: MessageEvent) => gate(() => listener.call(this, event)))
    }
    override get onmessage() {
      return super.onmessage
    }
  }
  const nav = navigator as Navigator & { locks: LockManager }
  const real = nav.locks
  const locks = {
    request(name: string, ...args: [LockOptions, LockGrantedCallback<unknown>]) {
      const asked = real.request(name, ...args)
      if (!name.startsWith('idb-ttl:settings:')) return asked
      return new Promise((resolve, reject) => {
        asked.then(
          (value) => gate(() => resolve(value)),
          (error: unknown) => gate(() => reject(error)),
        )
      })
    },
    query: () => real.query(),
  }
  return {
    install() {
      Object.defineProperty(globalThis, 'BroadcastChannel', { value: FrozenChannel, configurable: true, writable: true })
      Object.defineProperty(nav, 'locks', { value: locks, configurable: true })
    },
    /** Back to the plain globals, for the other realm; what was opened through the gate keeps it. */
    uninstall() {
      Object.defineProperty(globalThis, 'BroadcastChannel', { value: Channel, configurable: true, writable: true })
      Object.defineProperty(nav, 'locks', { value: real, configurable: true })
    },
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false
      setTimeout(() => held.splice(0).forEach((deliver) => deliver()), 0)
    },
  }
}

test("a frozen tab whose lock a change took follows the new settings at its first read on waking, before it hears of the change", { timeout: 4 * LEASE_MS }, async () => {
  const removeLocks = ensureLocks()
  const ice = freezer()
  const name = deleteAfter(uniqueName('held-lease'))
  const clock = manualClock(T0)
  let frozenTab: TtlDB<any> | undefined
  let other: TtlDB<any> | undefined
  try {
    ice.install()
    frozenTab = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
    await frozenTab.put('s', { id: 'a' })
    expect(await untilHeld(frozenTab, () => frozenTab!.get('s', 'a')), 'the tab holds its copy of the settings').toBe(true)
    ice.uninstall()
    vi.resetModules()
    const lib = (await import('../../src/index.js')) as typeof import('../../src/index.js')
    other = (await lib.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })) as TtlDB<any>
    clock.advance(50_000)
    ice.freeze()
    const started = performance.now()
    // The frozen tab never lets go: the change waits a lease, then takes the lock from it.
    await other.setDefaultTtl('s', 10)
    expect(performance.now() - started, 'the change waited for the frozen tab').toBeGreaterThanOrEqual(LEASE_MS - 50)
    expect(await other.get('s', 'a'), 'in the tab that changed the default').toBeUndefined()
    // It wakes: a read of its first task, before the queued call to let go and the lock's end.
    const read = frozenTab.get('s', 'a')
    ice.thaw()
    expect(await read, 'the 50-second-old item under the new 10-second default').toBeUndefined()
  } finally {
    ice.uninstall()
    frozenTab?.close()
    other?.close()
    removeLocks()
  }
})
