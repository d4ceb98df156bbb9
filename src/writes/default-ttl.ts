/**
 * `setDefaultTtl` of the handle (and the Cosmos DB mirror's following of its server's default):
 * loaded by the page entries with the handle's less common calls (`assembly/calls.ts`, issue #44)
 * at the first.
 */
import { META_STORE } from '../layout/expiry-index.js'
import type { StoreState } from '../rules/policy.js'
import { changeDefault, followDefault } from '../rules/default-change.js'
import { req } from '../platform/request.js'
import { announce } from '../layout/held-settings.js'
import { changingSettings } from '../layout/settings-change.js'
import type { DefaultTtl } from '../rules/ttl.js'
import { checkNewDefault } from './writes.js'
import { begin, type WriteContext } from './write-steps.js'

/**
 * Switches the default in constant time; what the old one had killed stays dead, unless the store
 * `follows` a server's setting (`followDefault`).
 * @throws TtlError `INVALID_TTL` (`writes.ts` `checkNewDefault`)
 */
export async function setDefaultTtl(ctx: WriteContext, storeName: string, value: DefaultTtl, follows = false): Promise<StoreState> {
  const defaultTtl = checkNewDefault(storeName, value)
  const next = await changingSettings(ctx.db.name, async () => {
    const { tx, committed } = begin(ctx, [META_STORE])
    const meta = tx.objectStore(META_STORE)
    const before = await req<StoreState>(meta.get(storeName))
    const next = follows ? followDefault(before, defaultTtl) : changeDefault(before, defaultTtl, ctx.clock())
    meta.put(next, storeName)
    await committed
    return next
  })
  announce(ctx.db.name, storeName, next)
  return next
}
