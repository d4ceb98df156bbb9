/**
 * `syncCosmos`: checks its arguments, starts queueing the store's local writes, and runs pull
 * and push rounds one at a time per store across the origin (a Web Lock), so that two tabs never
 * pull into, or push from, one store at once. With `intervalMs`, the connection elected puller
 * (one per origin, as the purge's leader is) runs a pull and a push round on a timer and when
 * the browser comes back online.
 */
import type { Container } from '@azure/cosmos'
import { electLeader, type Leadership } from '../background/leader.js'
import type { TtlDB } from '../assembly/db.js'
import { gateStore } from '../handle/internal.js'
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { webLocks, withLock } from '../platform/lock.js'
import { kindOf, TtlError } from '../rules/errors.js'
import { MAX_TTL } from '../rules/ttl.js'
import { readOnly, type Mirror } from './context.js'
import { internalsOf } from './internals.js'
import { queueWritesOf } from './observer.js'
import { queueStamp } from '../transaction/mirror-queue.js'
import { pullRound } from './pull.js'
import { ownsScope, rescope, scopeChanged } from './scope.js'
import { countsOf, pushRound } from './push.js'
import { listSetAside } from './rejected.js'
import { discardRejected, retryRejected } from './set-aside.js'
import { OfflineError } from './remote.js'
import { withinBudget } from './budget.js'
import { StatusBoard } from './status.js'
import type { CosmosSync, SyncOptions, SyncStatus } from './types.js'

/** The longest wait between two attempts at a change of scope that fails. */
const MAX_BACKOFF_MS = 30_000
const KNOWN = ['partitionKey', 'filter', 'onConflict', 'softDelete', 'intervalMs', 'maxRetries', 'backoffMs', 'maxWaitMs']
// A field no app's own data is likely to have: an app's own `deleted` flag would make its items vanish.
const DEFAULT_SOFT_DELETE = { field: '_idbTtlDeleted', ttl: 60 }

/** Rounds of this realm, per lock name, where there are no Web Locks: one after the other. */
const chains = new Map<string, Promise<unknown>>()

/**
 * Mirrors an Azure Cosmos DB container (or one partition key value of it) in `store`, which must
 * be declared with `keyPath: 'id'` and `mirror: true`: every write of it, by any handle in any
 * realm, is queued from open for the next push (docs/cosmos.md). A `keepTs: true` store not
 * declared so is accepted too, and queued from this call on, by this handle only.
 * @throws TtlError `UNKNOWN_STORE`, `INVALID_OPTION` (the store's declaration, the container, an
 * option), `SCHEMA_MISMATCH` (a database from before the mirror's stores: raise its version)
 */
export function syncCosmos(db: TtlDB<any>, store: string, container: Container, options: SyncOptions = {}): CosmosSync {
  const internals = internalsOf(db, store)
  const where = `syncCosmos(db, ${JSON.stringify(store)}, …)`
  if (!internals.config) throw new TtlError('UNKNOWN_STORE', `${where}: "${store}" is not a store declared in openTtlDB`)
  const { keyPath, keepTs, mirror: declared } = internals.config
  if (keyPath !== 'id' || (keepTs !== true && declared !== true)) {
    throw new TtlError('INVALID_OPTION', `${where}: the store must be declared with keyPath: 'id' and mirror: true (or keepTs: true) (the local key is the item's id; the copy keeps the server's _ts)`)
  }
  if (container === null || typeof container !== 'object' || typeof (container as Partial<Container>).item !== 'function' || !(container as Partial<Container>).items) {
    throw new TtlError('INVALID_OPTION', `${where}: the third argument must be an @azure/cosmos Container; got ${kindOf(container)}`)
  }
  const names = db.raw.objectStoreNames
  if (!names.contains(OUTBOX_STORE) || !names.contains(SYNC_STORE)) {
    throw new TtlError('SCHEMA_MISMATCH', `${where}: database "${internals.name}" version ${db.raw.version} predates the mirror's stores (${OUTBOX_STORE}, ${SYNC_STORE}): open it with a higher version`)
  }
  const checked = checkOptions(options, where)
  queueWritesOf(db, store, internals)

  const board = new StatusBoard()
  const retry = { maxRetries: checked.maxRetries ?? 5, backoffMs: checked.backoffMs ?? 250, maxWaitMs: checked.maxWaitMs ?? 60_000, waitedMs: 0 }
  // Every call through the container within the round's maxWaitMs, the SDK's own retries too.
  const mirror: Mirror = { db, store, container: withinBudget(container, retry), internals, options: checked, board, retry }
  const lockName = `idb-ttl:cosmos:${internals.name}:${store}`
  let stopped = false
  // The store changes to this sync's scope before anything else runs under the lock; writes
  // this connection queues from now on are this scope's (another tab's are the scope it showed).
  const since = queueStamp(internals.clock)
  let scoped: Promise<void> | undefined
  /** The number of the scope this sync adopted (`scope.ts`), once it did. */
  let generation: number | undefined
  /** Why this sync stopped for good: its scope was replaced. */
  let replaced: TtlError | undefined
  let landed!: () => void
  let unlanded!: (error: TtlError) => void
  /** Resolves once the store mirrors this sync's scope (or already did); rejects when the sync stops before. */
  const inPlace = new Promise<void>((resolve, reject) => ((landed = resolve), (unlanded = reject)))
  const inScope = () =>
    (scoped ??= rescope(mirror, since).then(
      (adopted) => {
        generation = adopted
        landed()
      },
      (error) => {
        scoped = undefined
        throw error
      },
    ))
  // The scope is kept at once (a later switch must know it, even if no round ran under it). A
  // change of scope lands before the app's next read of the store: its calls wait for it, run by
  // whichever comes first under the lock, this or a round. One that fails is tried again, with
  // back-off, until it lands or the sync stops: the store never shows the old scope to the new.
  const adopt = (waitMs: number): Promise<void> =>
    exclusive(lockName, inScope).catch((error: unknown) => {
      board.set('error', {}, error)
      // Stopped before it landed: the store's calls fail (until a later sync's scope lands), never
      // waiting for ever nor showing the old scope.
      if (stopped) return unlanded(new TtlError('CLOSED', `${where}: stopped before the store's change of scope landed; start syncCosmos again to land it`))
      // A handle closed (or reopening): the next round tries again, if one comes.
      if ((error as TtlError).code === 'CLOSED') return
      return new Promise((resolve) => setTimeout(resolve, waitMs)).then(() => adopt(Math.min(waitMs * 2, MAX_BACKOFF_MS)))
    })
  const adopted = adopt(Math.max(retry.backoffMs, 1))
  void scopeChanged(mirror).then((changed) => changed || landed(), () => {})
  gateStore(db, store, inPlace)

  /**
   * Stops this sync for good once the store mirrors another scope (SPEC §12b: one scope per
   * store, for every tab): it would pull its partition into the store the other scope shows, and
   * push that scope's writes into its partition. Checked in `tx`, under the round's Web Lock,
   * which every change of scope holds too (`rescope` runs only under it): none can land between
   * the check and the round's last read or write of the store.
   */
  const checkScope = async (tx: IDBTransaction): Promise<void> => {
    // Stopped before its scope landed: the store may still hold the old one.
    if (generation === undefined) throw closed()
    if (!replaced && generation !== undefined && !(await ownsScope(tx, store, generation))) {
      replaced = new TtlError(
        'CLOSED',
        `${where}: stopped, the store now mirrors another scope (a later syncCosmos, in this tab or another)`,
      )
      stop()
      board.set('error', {}, replaced)
    }
    if (replaced) throw replaced
  }
  const closed = () => replaced ?? new TtlError('CLOSED', `${where}: the sync was stopped`)

  const round = <T>(state: 'pulling' | 'pushing', run: () => Promise<T>): Promise<T> => {
    if (stopped) return Promise.reject(closed())
    return exclusive(lockName, async () => {
      Object.assign(mirror.retry, { waitedMs: 0, waitingUntil: 0 })
      await inScope()
      await readOnly(mirror, checkScope)
      board.set(state, state === 'pulling' ? { pulled: 0 } : { pushed: 0, ...(await countsOf(mirror)) })
      try {
        const result = await run()
        board.set('idle', await countsOf(mirror))
        return result
      } catch (error) {
        const counts = await countsOf(mirror).catch(() => ({}))
        board.set(error instanceof OfflineError ? 'offline' : 'error', counts, error instanceof OfflineError ? error.cause : error)
        throw error
      }
    })
  }

  /** Runs a change of the set-aside records under the lock, between rounds; the status then counts again. */
  const underLock = <T>(run: () => Promise<T>): Promise<T> =>
    exclusive(lockName, async () => {
      Object.assign(mirror.retry, { waitedMs: 0, waitingUntil: 0 })
      await inScope()
      await readOnly(mirror, checkScope)
      const result = await run()
      board.set(board.status.state, await countsOf(mirror))
      return result
    })
  const checkKey = (key: unknown, optional: boolean): string | undefined => {
    if ((optional && key === undefined) || typeof key === 'string') return key as string | undefined
    throw new TtlError('INVALID_OPTION', `${where}: the key of a set-aside record is a string; got ${kindOf(key)}`)
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  let leadership: Leadership | undefined
  // A failed round is shown by the status, and the next tick tries again; a failed pull does not
  // keep this tick's writes from the server.
  const both = async () => {
    await round('pulling', () => pullRound(mirror, false)).catch(() => {})
    // Nothing queued: no push round to show.
    const pending = await countsOf(mirror).then(({ pending }) => pending, () => 0)
    if (pending > 0) await round('pushing', () => pushRound(mirror)).catch(() => {})
  }
  const tick = () => {
    timer = undefined
    void both().finally(() => {
      if (leadership && !stopped && timer === undefined) timer = setTimeout(tick, checked.intervalMs)
    })
  }
  const online = () => leadership && timer !== undefined && (clearTimeout(timer), tick())
  if (checked.intervalMs !== undefined) {
    leadership = electLeader(`idb-ttl:cosmos-puller:${internals.name}:${store}`, (leading) => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      if (leading && !stopped) tick()
    })
    globalThis.addEventListener?.('online', online)
  }

  // A database the browser took (`db.lost`, docs/storage.md) lost its copies, checkpoint and
  // outbox with it: a full pull brings the copies back at once; nothing is left to push.
  if (db.lost) void round('pulling', () => pullRound(mirror, true)).catch(() => {})

  function stop(): void {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    leadership?.release()
    globalThis.removeEventListener?.('online', online)
  }

  return {
    pull: (opts) => round('pulling', () => pullRound(mirror, opts?.full === true)),
    push: () => round('pushing', () => pushRound(mirror)),
    // After the scope's adoption: the records listed are its own.
    rejected: () =>
      adopted.then(() =>
        readOnly(mirror, async (tx) => {
          await checkScope(tx)
          return listSetAside(tx, store)
        }),
      ),
    retry: (key) => underLock(() => retryRejected(mirror, checkKey(key, true))),
    discard: (key) => underLock(() => discardRejected(mirror, checkKey(key, false)!)),
    onStatus: (listener: (status: SyncStatus) => void) => board.listen(listener),
    get status() {
      return board.status
    },
    stop,
  }
}

/** Runs `run` holding the Web Lock `name` (where there are none, after this realm's earlier rounds). */
function exclusive<T>(name: string, run: () => Promise<T>): Promise<T> {
  const locks = webLocks()
  if (locks) return withLock(locks, name, run)
  const next = (chains.get(name) ?? Promise.resolve()).catch(() => {}).then(run)
  chains.set(name, next)
  return next
}

function checkOptions(options: SyncOptions, where: string): SyncOptions {
  if (options === null || typeof options !== 'object') throw new TtlError('INVALID_OPTION', `${where}: options must be an object; got ${kindOf(options)}`)
  for (const name of Object.keys(options)) {
    if (!KNOWN.includes(name)) throw new TtlError('INVALID_OPTION', `${where}: unknown option "${name}" (known: ${KNOWN.join(', ')})`)
  }
  const bad = (option: string, wanted: string, got: unknown) => new TtlError('INVALID_OPTION', `${where}: option ${option} must be ${wanted}; got ${kindOf(got)} ${typeof got === 'object' ? '' : String(got)}`.trim())
  const { partitionKey, filter, onConflict, intervalMs, maxRetries, backoffMs, maxWaitMs } = options
  if (partitionKey !== undefined && partitionKey !== null && !['string', 'number', 'boolean'].includes(typeof partitionKey)) throw bad('partitionKey', 'a string, number, boolean or null', partitionKey)
  if (filter !== undefined && (filter === null || typeof filter.where !== 'string' || (filter.parameters !== undefined && !Array.isArray(filter.parameters)))) {
    throw bad('filter', '{ where: string, parameters?: [{ name, value }] }', filter)
  }
  if (onConflict !== undefined && typeof onConflict !== 'function') throw bad('onConflict', 'a function', onConflict)
  for (const [option, value, min] of [['intervalMs', intervalMs, 1], ['maxRetries', maxRetries, 0], ['backoffMs', backoffMs, 0], ['maxWaitMs', maxWaitMs, 0]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= min)) throw bad(option, `an integer ≥ ${min}`, value)
  }
  const soft = options.softDelete ?? DEFAULT_SOFT_DELETE
  if (soft !== false) {
    if (soft === null || typeof soft !== 'object' || typeof soft.field !== 'string' || soft.field === '') throw bad('softDelete', "false or { field: string, ttl: 1 … 2147483647 }", soft)
    if (!(Number.isInteger(soft.ttl) && soft.ttl >= 1 && soft.ttl <= MAX_TTL)) throw bad('softDelete.ttl', `an integer from 1 to ${MAX_TTL}`, soft.ttl)
  }
  return { ...options, softDelete: soft }
}
