/**
 * The page side of the worker realms (store-ops.ts): starts a dedicated worker, a shared worker or
 * a service worker running idb-ttl, and talks to it with a MessageChannel per request. After each
 * test every realm closes its handles and is ended (terminated, its port closed, unregistered),
 * then the databases the test named are deleted.
 */
import { deleteDB } from 'idb'
import { afterEach, expect, vi } from 'vitest'
import type { Reply, Request } from './store-ops.js'

/** How long a realm has to answer one request. */
const ANSWER_MS = 30_000

export interface Realm {
  /** Sends `request`: resolves to the value answered, rejects with the realm's error. */
  ask<T = unknown>(request: Request): Promise<T>
  /** The same, with the whole reply (the answering realm's id included). */
  reply(request: Request): Promise<Reply>
}

type Target = { postMessage(message: unknown, transfer: Transferable[]): void }

function talkTo(target: () => Target): Realm {
  const reply = (request: Request) =>
    new Promise<Reply>((resolve, reject) => {
      const channel = new MessageChannel()
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(request)} in ${ANSWER_MS} ms`)), ANSWER_MS)
      channel.port1.onmessage = (event: MessageEvent<Reply>) => {
        clearTimeout(timer)
        channel.port1.close()
        resolve(event.data)
      }
      target().postMessage(request, [channel.port2])
    })
  return {
    reply,
    async ask<T>(request: Request) {
      const answer = await reply(request)
      if (answer.ok) return answer.value as T
      throw Object.assign(new Error(`${answer.error.name}: ${answer.error.message}`), { name: answer.error.name, code: answer.error.code })
    },
  }
}

const cleanups: (() => Promise<unknown> | unknown)[] = []
const databases = new Set<string>()

/** Deletes database `name` after the test, once every realm has let it go. */
export function deleteAfterTest(name: string): string {
  databases.add(name)
  return name
}

/** Runs `cleanup` after the test, before the databases are deleted (in the order registered). */
export function afterTest(cleanup: () => Promise<unknown> | unknown): void {
  cleanups.push(cleanup)
}

/** What a realm that is ended does first: it closes its handles, answering or not. */
const closeAll = (realm: Realm) => Promise.race([realm.ask({ op: 'closeAll' }), new Promise((resolve) => setTimeout(resolve, 5_000))]).catch(() => {})

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
  // A deletion that waits for a connection some realm failed to close ends in the background.
  for (const name of [...databases]) await Promise.race([deleteDB(name), new Promise((resolve) => setTimeout(resolve, 10_000))])
  databases.clear()
})

export function startDedicatedWorker(): Realm {
  const worker = new Worker(new URL('./store-worker.ts', import.meta.url), { type: 'module', name: 'idb-ttl-test-realm' })
  const realm = talkTo(() => worker)
  afterTest(async () => {
    await closeAll(realm)
    worker.terminate()
  })
  return realm
}

export function startSharedWorker(): Realm {
  // A name of its own: a new instance, not one another test (or file) still has open.
  const worker = new SharedWorker(new URL('./store-worker.ts', import.meta.url), { type: 'module', name: `idb-ttl-test-${crypto.randomUUID()}` })
  const realm = talkTo(() => worker.port)
  afterTest(async () => {
    await closeAll(realm)
    // Its only port closed, the shared worker has no client left and ends.
    worker.port.close()
  })
  return realm
}

/** The service worker's script, which Vite's dev server serves as JavaScript. */
const swScript = () => new URL('./store-sw.ts', import.meta.url)

/**
 * A scope no other registration has, in the script's folder. (Resolved against the script's URL:
 * Vite rewrites `new URL(…, import.meta.url)` with anything but a plain path in it, and a
 * template comes out as `./undefined`, one scope for all.)
 */
const scopeOfItsOwn = (kind: string) => new URL(`__idb-ttl-sw-test/${kind}-${crypto.randomUUID()}/`, swScript()).href

/**
 * Registers store-sw.ts (or `script`, another service worker of this folder) as a module service
 * worker with a scope of its own, under the script's folder (Vite's dev server sends no
 * Service-Worker-Allowed header, so a scope above it is refused), which controls no page: the
 * test page is elsewhere. Resolves once it is active.
 */
export async function registerServiceWorker(script = swScript()): Promise<Realm & { registration: ServiceWorkerRegistration }> {
  const scope = scopeOfItsOwn('test')
  const registration = await navigator.serviceWorker.register(script, { type: 'module', scope })
  const realm = talkTo(() => {
    if (!registration.active) throw new Error('the service worker is not active')
    return registration.active
  })
  afterTest(async () => {
    if (registration.active) await closeAll(realm)
    await registration.unregister()
  })
  const worker = registration.installing ?? registration.waiting ?? registration.active
  if (!worker) throw new Error('registered, but no service worker installing, waiting or active')
  await vi.waitFor(
    () => {
      if (worker.state === 'redundant') throw new Error('the service worker became redundant: its script failed to install')
      expect(worker.state).toBe('activated')
    },
    { timeout: ANSWER_MS, interval: 20 },
  )
  return Object.assign(realm, { registration })
}

/**
 * Why a module service worker cannot run here, or `undefined` if it can: registers one, asks it
 * who it is, unregisters it. What failed, with the error's name and message.
 */
export async function serviceWorkerUnavailable(): Promise<string | undefined> {
  if (!('serviceWorker' in navigator)) return `navigator.serviceWorker is undefined (isSecureContext: ${isSecureContext}, in a frame: ${window !== window.top})`
  const scope = scopeOfItsOwn('probe')
  let registration: ServiceWorkerRegistration | undefined
  try {
    registration = await navigator.serviceWorker.register(swScript(), { type: 'module', scope })
    const worker = registration.installing ?? registration.waiting ?? registration.active
    await vi.waitFor(() => {
      if (worker?.state === 'redundant') throw new Error('the service worker became redundant: its script failed to install')
      expect(worker?.state).toBe('activated')
    }, { timeout: ANSWER_MS, interval: 20 })
    await talkTo(() => worker!).ask({ op: 'hello' })
    return undefined
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  } finally {
    await registration?.unregister().catch(() => {})
  }
}
