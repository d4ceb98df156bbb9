/**
 * The model of devices.property.node.test.ts, written from SPEC §1–2, §12 and §12b and sharing no
 * code with src/: what a container of Cosmos DB holds live at an instant (its own TTL matrix), and
 * what the devices that mirror it owe it (every local write they accepted).
 *
 * It does not predict each step's local state (property.node.test.ts does that for one device);
 * it checks what SPEC §12b promises a team with several devices once they have synced:
 *
 * - **Convergence.** Each device's live view is the server's live items of that device's scope
 *   (its partition key value, and its filter {@link LOW} when it has one), with TTL applied at the same instant, up to {@link TOLERANCE_MS} (SPEC §12b: a copy leaves
 *   local reads within 2 s of the server's expiry, on a device whose clock is off too).
 * - **Nothing accepted is lost.** A device's write is on the server once synced, unless another
 *   writer's write landed after it (last writer wins on `_ts`, judged on the server's clock, so
 *   {@link SLACK_MS} either way is left undecided), or it could have expired meanwhile, or it was
 *   set aside (and then `sync.rejected()` lists it and the device keeps it).
 */

export type Tenant = 't1' | 't2'
export type Key = 'a' | 'b' | 'c'
export type Doc = Record<string, unknown>
/** A container's `defaultTtl` (`null`: TTL off). */
export type Default = number | null

export const TENANTS: readonly Tenant[] = ['t1', 't2']
export const KEYS: readonly Key[] = ['a', 'b', 'c']
/** The mirror's soft-delete marker and its tombstones' `ttl` (the defaults, docs/cosmos.md). */
export const TOMBSTONE = { field: '_idbTtlDeleted', ttl: 60 }

/**
 * How far (ms) from an item's expiry its fate at a check is left open: SPEC §12b's 2 s, and the
 * time a check takes to read a device and the server.
 */
export const TOLERANCE_MS = 2500
/**
 * How close (ms) two writes of an item may be for the later one in real time to lose anyway: a
 * conflict is decided on `_ts` (whole seconds) against the device's write time moved by the
 * offset the mirror learned of its clock (to within 1.5 s).
 */
export const SLACK_MS = 3000

/** The filter a device may switch to, and back: items whose `n` is under 50 (a tombstone has none). */
export const LOW = { where: 'c.n < @idbTtlMax', parameters: [{ name: '@idbTtlMax', value: 50 }] }
export const matchesLow = (doc: Doc): boolean => typeof doc.n === 'number' && doc.n < 50

/** Seconds an item lives after its `_ts` (SPEC §1's matrix), or null when it never expires. */
export function lifetime(ttl: unknown, defaultTtl: Default): number | null {
  if (defaultTtl === null || ttl === -1) return null
  if (typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 1) return ttl
  return defaultTtl === -1 ? null : defaultTtl
}

/** When (epoch ms, the server's clock) a server item expires under `defaultTtl`; Infinity: never. */
export function expiresAt(doc: Doc, defaultTtl: Default): number {
  const life = lifetime(doc.ttl, defaultTtl)
  return life === null ? Infinity : ((doc._ts as number) + life) * 1000
}

export const isTombstone = (doc: Doc | undefined): boolean => doc?.[TOMBSTONE.field] === true

/** An item's content: what the app wrote, without the server's own fields. */
export function contentOf(doc: Doc): Doc {
  const { _rid, _self, _attachments, _lsn, _ts, _etag, ...rest } = doc
  return rest
}

/** What a server item is at `nowMs`: surely live, surely gone, or too close to its expiry to say. */
export function fate(doc: Doc, defaultTtl: Default, nowMs: number): 'live' | 'dead' | 'open' {
  if (isTombstone(doc)) return 'dead'
  const end = expiresAt(doc, defaultTtl)
  if (end > nowMs + TOLERANCE_MS) return 'live'
  return end < nowMs - TOLERANCE_MS ? 'dead' : 'open'
}

/** A local write a device accepted, as the model follows it until it is verified on the server. */
export interface Obligation {
  op: 'put' | 'delete'
  /** The written value's `w` (every write carries a tag of its own); none for a delete. */
  tag?: string
  /** When it was written, epoch ms on the server's clock (real time). */
  at: number
  /** The status the server refuses it with while refusals are on (test/cosmos/refusing.ts), if it does. */
  refusal?: number
  /** Whether its item may expire: a `ttl` of its own, or the container's TTL on at some time since. */
  mayExpire: boolean
  /** Queued; sent by a push (to be verified); or refused and set aside. */
  status: 'queued' | 'sent' | 'rejected'
}

/** What landed on the server for an item, and when (epoch ms, the server's clock), by whom. */
export interface Landing {
  at: number
  by: string
}

/** One device as the model follows it. */
export class DeviceModel {
  /** The latest local write of each item, per partition key value (a scope left keeps its own, parked). */
  readonly owed = new Map<Tenant, Map<Key, Obligation>>(TENANTS.map((t) => [t, new Map()]))
  /** Items with a write set aside in the mirror, per partition key value. */
  readonly setAside = new Map<Tenant, Set<Key>>(TENANTS.map((t) => [t, new Set()]))
  online = true
  /** Whether its mirror has the filter {@link LOW} (`c.n < 50`), or none. */
  low = false
  /** When its last pull succeeded (the server's clock), and the tombstones removed since, in its scope. */
  lastPull: number | undefined
  tombstonesGoneSince = 0

  constructor(
    readonly name: string,
    public scope: Tenant,
    /** How far its clock is ahead of the server's, ms. */
    public skewMs: number,
  ) {}

  /** A local write of the scope's item `key`. */
  write(key: Key, obligation: Omit<Obligation, 'status'>): void {
    this.owed.get(this.scope)!.set(key, { ...obligation, status: 'queued' })
  }

  /**
   * A push that reached the server: every queued write of the scope is sent, or set aside when
   * the server refuses it; a write sent replaces what was set aside of its item. A 409 is also
   * how the server answers a create over an item it has: when the conflict goes to the server's
   * copy, the write is dropped, not set aside (`listed`: what the mirror set aside after the push;
   * the write dropped must then have been superseded, {@link lost}).
   */
  pushed(atMs: number, refusing: boolean, landings: Landings, listed: ReadonlySet<string>): void {
    const aside = this.setAside.get(this.scope)!
    for (const [key, obligation] of this.owed.get(this.scope)!) {
      if (obligation.status !== 'queued') continue
      if (obligation.refusal !== undefined && refusing && (obligation.refusal !== 409 || listed.has(key))) {
        obligation.status = 'rejected'
        aside.add(key)
      } else {
        obligation.status = 'sent'
        aside.delete(key)
        landings.add(this.scope, key, { at: atMs, by: this.name })
      }
    }
  }

  /** `sync.retry(key)`: what it resolves to. The write set aside is queued again, unless a later one is. */
  retry(key: Key): number {
    const aside = this.setAside.get(this.scope)!
    if (!aside.delete(key)) return 0
    const obligation = this.owed.get(this.scope)!.get(key)
    if (obligation?.status === 'rejected') obligation.status = 'queued'
    return 1
  }

  /** `sync.discard(key)`: what it resolves to. The write set aside is given up, for the server's copy. */
  discard(key: Key): boolean {
    const aside = this.setAside.get(this.scope)!
    if (!aside.delete(key)) return false
    if (this.owed.get(this.scope)!.get(key)?.status === 'rejected') this.owed.get(this.scope)!.delete(key)
    return true
  }

  /**
   * The device mirrors `scope` from now on. The scope left keeps its writes not yet pushed,
   * parked on the device (never pushed into another partition); those of the scope it comes back
   * to are queued, or set aside, again as they were (SPEC §12b's scope, src/cosmos/scope.ts).
   */
  switchTo(scope: Tenant): void {
    this.scope = scope
  }

  /** The container's TTL was turned on or changed to a finite value: every write owed may expire. */
  containerExpires(): void {
    for (const owed of this.owed.values()) for (const obligation of owed.values()) obligation.mayExpire = true
  }

  /** Writes of other scopes, parked on the device. */
  parked(): number {
    let count = 0
    for (const [tenant, owed] of this.owed) if (tenant !== this.scope) count += [...owed.values()].filter((o) => o.status !== 'sent').length
    return count
  }
}

/** What landed on the server, per item, from every writer. */
export class Landings {
  private readonly byItem = new Map<string, Landing[]>()

  add(tenant: Tenant, key: Key, landing: Landing): void {
    const id = `${tenant}/${key}`
    this.byItem.set(id, [...(this.byItem.get(id) ?? []), landing])
  }

  /** Whether a writer other than `by` wrote the item after `atMs` (less {@link SLACK_MS}). */
  supersedes(tenant: Tenant, key: Key, by: string, atMs: number): boolean {
    return (this.byItem.get(`${tenant}/${key}`) ?? []).some((landing) => landing.by !== by && landing.at > atMs - SLACK_MS)
  }
}

/**
 * What is wrong with a device's live view (its `getAll`, read at `nowMs` on the server's clock)
 * against the server's items (all of them, every partition, tombstones included), for a device
 * mirroring `scope` (with the filter {@link LOW} when `low`) whose clock is `skewMs` ahead. `apart`: items whose write is set aside (the
 * device keeps its own). `justGone`: items the server removed on expiry, with the instant, which
 * a device may still show within the tolerance. Empty: in step.
 */
export function divergence(
  local: Doc[],
  server: Doc[],
  scope: Tenant,
  defaultTtl: Default,
  nowMs: number,
  skewMs: number,
  apart: ReadonlySet<string>,
  justGone: ReadonlyMap<string, number>,
  low = false,
): string[] {
  const problems: string[] = []
  const inScope = new Map(server.filter((doc) => doc.tenant === scope && (!low || matchesLow(doc))).map((doc) => [doc.id as string, doc]))
  const mine = new Map(local.map((doc) => [doc.id as string, doc]))
  for (const doc of local) if (doc.tenant !== scope) problems.push(`${doc.id} of ${String(doc.tenant)} shows on a device of ${scope}`)
  for (const id of new Set([...inScope.keys(), ...mine.keys()])) {
    if (apart.has(id)) continue
    const want = inScope.get(id)
    const got = mine.get(id)
    const expected = want ? fate(want, defaultTtl, nowMs) : 'dead'
    if (!got) {
      if (expected === 'live') problems.push(`${id} is missing (the server has ${JSON.stringify(contentOf(want!))})`)
      continue
    }
    if (!want) {
      const gone = justGone.get(`${scope}/${id}`)
      if (low && !matchesLow(got)) problems.push(`${id} shows, outside the filter (${JSON.stringify(contentOf(got))})`)
      else if (gone === undefined || Math.abs(gone - nowMs) > TOLERANCE_MS) problems.push(`${id} shows, the server has none (${JSON.stringify(contentOf(got))})`)
      continue
    }
    if (expected === 'dead') {
      problems.push(`${id} shows, dead on the server (${isTombstone(want) ? 'a tombstone' : `expired at ${expiresAt(want, defaultTtl) - nowMs} ms from now`})`)
      continue
    }
    if (JSON.stringify(sorted(contentOf(got))) !== JSON.stringify(sorted(contentOf(want)))) {
      problems.push(`${id} is ${JSON.stringify(contentOf(got))}, the server's is ${JSON.stringify(contentOf(want))}`)
    }
    if (got._etag !== want._etag) problems.push(`${id}'s _etag is ${String(got._etag)}, the server's ${String(want._etag)}`)
    // The copy's `_ts` is the server's moved onto the device's clock (whole seconds, learned to within 1.5 s).
    const moved = (got._ts as number) - (want._ts as number)
    if (Math.abs(moved * 1000 - skewMs) > 2000) problems.push(`${id}'s _ts is the server's + ${moved} s, the device's clock is ${skewMs} ms ahead`)
  }
  return problems
}

/**
 * What is wrong with what a device owes the server once synced (its scope's writes, all sent or
 * set aside), given the server's items (`server`, contents by `${tenant}/${id}`) at `nowMs`.
 * `seen` counts the puts found on the server and the writes another writer superseded.
 */
export function lost(device: DeviceModel, server: ReadonlyMap<string, Doc>, defaultTtl: Default, nowMs: number, landings: Landings, seen?: Record<string, number>): string[] {
  const problems: string[] = []
  for (const [key, obligation] of device.owed.get(device.scope)!) {
    if (obligation.status === 'rejected') continue
    if (obligation.status === 'queued') {
      problems.push(`${device.name}'s write of ${key} is still queued after a push`)
      continue
    }
    const doc = server.get(`${device.scope}/${key}`)
    if (obligation.op === 'put' && doc?.w === obligation.tag) {
      if (seen) seen.onServer++
      continue
    }
    if (landings.supersedes(device.scope, key, device.name, obligation.at)) {
      if (seen) seen.superseded++
      continue
    }
    if (obligation.op === 'put') {
      if (obligation.mayExpire && (!doc || isTombstone(doc))) continue
      problems.push(`${device.name}'s put of ${key} (${obligation.tag}) is lost: the server has ${doc ? JSON.stringify(contentOf(doc)) : 'nothing'}`)
    } else {
      if (!doc || fate(doc, defaultTtl, nowMs) !== 'live') continue
      problems.push(`${device.name}'s delete of ${key} is lost: the server has ${JSON.stringify(contentOf(doc))}`)
    }
  }
  return problems
}

/** The writes the device has verified: those sent are done with (a later check judges later writes). */
export function settle(device: DeviceModel): void {
  const owed = device.owed.get(device.scope)!
  for (const [key, obligation] of owed) if (obligation.status === 'sent') owed.delete(key)
}

function sorted(doc: Doc): Doc {
  return Object.fromEntries(Object.entries(doc).sort(([x], [y]) => x.localeCompare(y)))
}
