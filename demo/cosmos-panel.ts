/**
 * Section 7: a Cosmos DB container and its offline mirror side by side. On the left the
 * container's items as the server holds them (read through the SDK every second: the server
 * tells no one of its changes), with TTL applied here, since the embedded server never expires
 * an item; on the right the store `mirror`, kept by `syncCosmos` (a live query: no polling).
 * Either side takes writes; the network switch cuts the mirror off the server while the left
 * side still sees it; the sync's status shows what the mirror is doing and what it still owes.
 * Below, the writes the server refused (demo/cosmos-rejected.ts); above, the tenant selector
 * (demo/cosmos-tenant.ts), which restarts the sync on another partition key value.
 */
import { syncCosmos, type CosmosItem, type CosmosSync, type SyncStatus } from '../src/cosmos/index.js'
import { expiresAt, type DefaultTtl, type LiveQuery } from '../src/index.js'
import type { DemoAccount } from './cosmos-account.js'
import { RejectedPanel } from './cosmos-rejected.js'
import { CosmosSide } from './cosmos-side.js'
import { savedTenant, tenantPicker, tenantsOf } from './cosmos-tenant.js'
import { MIRROR_STORE, type DemoDB, type DemoItem } from './database.js'
import { h, setText } from './dom.js'

/** How often the elected puller pulls, then pushes: often enough to watch it catch up. */
const SYNC_MS = 2000
/** How often the server side reads the container. */
const SERVER_POLL_MS = 1000
/** Items shown per side. */
const SHOWN = 25
/** A delete on the server side writes the tombstone the mirror's pulls understand (docs/cosmos.md). */
const TOMBSTONE = { field: '_idbTtlDeleted', ttl: 60 }

export interface CosmosPanel {
  frame(now: number): void
  /** Stops the sync, the server side's reads and the mirror's live query (before a reset). */
  stop(): void
}

type Shown = { item: DemoItem; expiresAt: number | undefined }[]

/** Runs `task` one at a time; a call while it runs asks for one more run after. */
function serial(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let again = false
  const run = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = task().finally(() => {
      running = undefined
      if (again) {
        again = false
        void run()
      }
    })
    return running
  }
  return run
}

/** The server's copy without its system fields: what a client sends back. */
function userFields(item: CosmosItem): CosmosItem {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !name.startsWith('_'))) as CosmosItem
}

function describeStatus(s: SyncStatus): string {
  const why = s.error ? ` (${s.error.name}: ${s.error.message})` : ''
  const setAside = s.rejected ? ` · ${s.rejected} set aside` : ''
  return `sync: ${s.state}${why} · ${s.pending} local write${s.pending === 1 ? '' : 's'} to push${setAside} · last pull brought ${s.pulled}, last push sent ${s.pushed}`
}

export function mountCosmos(root: HTMLElement, db: DemoDB): CosmosPanel {
  const waiting = h('p', { class: 'hint', 'data-testid': 'cosmos-state' }, 'Asking the dev server for its Cosmos DB account…')
  root.replaceChildren(waiting)
  let panel: CosmosPanel | undefined
  let stopped = false
  // The SDK loads with the account, after the page is up, and never in the second frame.
  void import('./cosmos-account.js').then(({ connectAccount }) => connectAccount()).then((account) => {
    if (stopped) return
    if ('missing' in account) {
      waiting.dataset.state = 'missing'
      setText(waiting, account.missing)
      return
    }
    panel = start(root, db, account)
  }).catch((error: Error) => {
    waiting.dataset.state = 'failed'
    setText(waiting, `The Cosmos DB panel could not start: ${error.name}: ${error.message}`)
  })
  return {
    frame: (now) => panel?.frame(now),
    stop() {
      stopped = true
      panel?.stop()
    },
  }
}

function start(root: HTMLElement, db: DemoDB, account: DemoAccount): CosmosPanel {
  const { info, server } = account
  const tenants = tenantsOf(info.partitionKey)
  /** The partition key value mirrored, and written and read on the server side. */
  let tenant = savedTenant(tenants)
  let sync: CosmosSync = syncCosmos(db, MIRROR_STORE, account.mirror, { partitionKey: tenant, intervalMs: SYNC_MS })

  let serverItems = new Map<string, CosmosItem>()
  let serverTtl: DefaultTtl | undefined
  const serverSide = new CosmosSide('server',
    h('span', {}, 'On the server ', h('small', {}, info.account === 'embedded' ? 'the embedded Cosmos DB server' : info.account)),
    h('p', { class: 'hint', 'data-testid': 'cosmos-server-note' }, info.account === 'embedded'
      ? 'The embedded server keeps ttl but never deletes an item: this side applies TTL itself, hiding each item at _ts + (ttl ?? defaultTtl), as Cosmos DB would.'
      : 'Cosmos DB deletes expired items itself; this side also hides each one at _ts + (ttl ?? defaultTtl), between two reads.'),
    {
      put: (item) => server.items.upsert({ ...item, tenant }),
      rewrite: async (id) => {
        const item = serverItems.get(id)
        if (item) await server.items.upsert(userFields(item))
      },
      remove: (id) => server.items.upsert({ id, tenant, [TOMBSTONE.field]: true, ttl: TOMBSTONE.ttl }),
    },
    () => void readServer())
  const mirrorSide = new CosmosSide('mirror',
    h('span', {}, 'Offline mirror ', h('small', {}, `IndexedDB store "${MIRROR_STORE}"`)),
    h('p', { class: 'hint' }, 'A live query of the store: its items expire here, at the same second as on the server, with or without a network. Local writes are queued and pushed.'),
    {
      put: (item) => db.put(MIRROR_STORE, item),
      rewrite: (id) => db.touch(MIRROR_STORE, id),
      remove: (id) => db.delete(MIRROR_STORE, id),
    },
    () => void readMirror())

  const serverError = h('p', { class: 'error', role: 'alert', 'data-testid': 'cosmos-server-error' })
  const status = h('p', { class: 'status cosmos-sync', 'data-testid': 'cosmos-sync', role: 'status' })
  let online = info.online
  const network = h('button', { type: 'button', 'data-testid': 'cosmos-network', onclick: () => void toggleNetwork() })
  const showNetwork = () => {
    network.dataset.online = String(online)
    setText(network, online ? 'Cut the network' : 'Restore the network')
  }
  showNetwork()
  const toggleNetwork = async () => {
    network.disabled = true
    try {
      await account.setNetwork(!online)
      online = !online
      showNetwork()
    } catch (error) {
      setText(serverError, `The network switch failed: ${(error as Error).message}`)
    } finally {
      network.disabled = false
    }
  }
  // A round that fails shows in the status; nothing else to do with its rejection.
  const ignore = () => {}
  const call = h('code', { class: 'call' })
  const showCall = () => setText(call, `syncCosmos(db, '${MIRROR_STORE}', container, { partitionKey: '${tenant}', intervalMs: ${SYNC_MS} })`)
  showCall()
  /** Stops the mirror of one tenant and starts one of `next`: its first round rescopes the store. */
  const switchTenant = async (next: string) => {
    sync.stop()
    unwatch()
    tenant = next
    showCall()
    sync = syncCosmos(db, MIRROR_STORE, account.mirror, { partitionKey: tenant, intervalMs: SYNC_MS })
    unwatch = watch(sync)
    void readServer()
    await sync.pull().catch(ignore)
  }
  const controls = h('div', { class: 'cosmos-controls' },
    tenantPicker(tenants, tenant, switchTenant),
    network,
    h('button', { type: 'button', 'data-testid': 'cosmos-pull', onclick: () => void sync.pull().catch(ignore) }, 'Pull now'),
    h('button', { type: 'button', 'data-testid': 'cosmos-push', onclick: () => void sync.push().catch(ignore) }, 'Push now'),
    status)
  const rejected = new RejectedPanel(db)
  root.replaceChildren(
    call,
    controls,
    serverError,
    h('div', { class: 'columns' }, serverSide.el, mirrorSide.el),
    rejected.el)

  /** Shows the status and the set-aside writes of `current`; returns what stops that. */
  const watch = (current: CosmosSync) => {
    const unfollow = rejected.follow(current)
    const unlisten = current.onStatus((s) => {
      status.dataset.state = s.state
      status.dataset.pending = String(s.pending)
      setText(status, describeStatus(s))
    })
    return () => (unfollow(), unlisten())
  }
  let unwatch = watch(sync)

  let timer: ReturnType<typeof setTimeout> | undefined
  /** The first expiry among the server's items shown: the next read comes no later. */
  let nextExpiry = Infinity
  let stopped = false
  const readServer = serial(async () => {
    try {
      serverTtl ??= (await server.read()).resource?.defaultTtl ?? null
      const query = { query: 'SELECT * FROM c WHERE c.tenant = @pk', parameters: [{ name: '@pk', value: tenant }] }
      const { resources } = await server.items.query<CosmosItem>(query).fetchAll()
      serverItems = new Map(resources.map((item) => [item.id, item]))
      const now = Date.now()
      const shown: Shown = resources
        .filter((item) => item[TOMBSTONE.field] !== true)
        .map((item) => ({ item: item as DemoItem, expiresAt: expiresAt(item, serverTtl!, { ttlValues: 'lenient' }) }))
        .filter((entry) => entry.expiresAt > now)
        .sort((a, b) => (a.item.id! < b.item.id! ? -1 : 1))
        .slice(0, SHOWN)
      serverSide.show(shown, serverTtl)
      nextExpiry = Math.min(Infinity, ...shown.map((entry) => entry.expiresAt!))
      setText(serverError, '')
    } catch (error) {
      setText(serverError, `Reading the container failed: ${(error as Error).message}`)
    }
  })
  const poll = () => {
    timer = undefined
    void readServer().finally(() => {
      // At an item's expiry too, so that it leaves this side at the same second as the mirror's.
      if (!stopped) timer = setTimeout(poll, Math.max(0, Math.min(SERVER_POLL_MS, nextExpiry - Date.now())))
    })
  }
  poll()

  const live = db.live(MIRROR_STORE, { count: SHOWN }) as LiveQuery<DemoItem>
  const readMirror = serial(async () => {
    const items = live.getSnapshot() ?? ((await db.getAll(MIRROR_STORE, null, SHOWN)) as DemoItem[])
    const defaultTtl = await db.getDefaultTtl(MIRROR_STORE)
    const shown: Shown = await Promise.all(items.map(async (item) => ({ item, expiresAt: await db.expiresAt(MIRROR_STORE, item.id!) })))
    mirrorSide.show(shown, defaultTtl)
  })
  // A read that fails (the database closing for a reset) leaves the side as it was.
  const unfollow = live.subscribe(() => void readMirror().catch(ignore))
  void readMirror().catch(ignore)

  return {
    frame(now) {
      serverSide.frame(now)
      mirrorSide.frame(now)
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      sync.stop()
      unwatch()
      unfollow()
    },
  }
}
