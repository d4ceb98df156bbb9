/**
 * Changing a container's `defaultTtl` on the in-process test server, as `Container.replace`
 * does on Cosmos DB (where the items stay). The test server's replace of a collection sets a new,
 * empty collection in its place: every item is lost. `keepItemsOnReplace()` makes it carry the
 * items (and user-defined functions) over, for the test file that calls it: the server lives in
 * that file's module graph.
 */
import type { Container } from '@azure/cosmos'
import Collections from '@vercel/cosmosdb-server/lib/account/collections.js'
import Items from '@vercel/cosmosdb-server/lib/account/items.js'

type Stored = { documents: unknown; userDefinedFunctions: unknown }

let patched = false

export function keepItemsOnReplace(): void {
  if (patched) return
  patched = true
  const replace = Collections.prototype.replace
  Collections.prototype.replace = function (this: Collections, data, original) {
    const before = this._data.get(original._rid) as unknown as Stored | undefined
    const result = replace.call(this, data, original)
    const after = this._data.get(original._rid) as unknown as Stored | undefined
    if (before && after) {
      after.documents = before.documents
      after.userDefinedFunctions = before.userDefinedFunctions
    }
    return result
  }
}

let dated = false

/**
 * Creates `item` in `container` as the server would have `atMs` (its `_ts` that second), for the
 * test file that calls it. The server's create is synchronous, so its clock is moved for that
 * call alone: creates may run side by side, and nothing else ever sees the clock moved (a spy on
 * `Date.now` held across an awaited create stays on for whatever runs meanwhile: a test timed
 * out mid-loop left it on for the next test).
 */
export async function createAt(container: Container, item: Record<string, unknown>, atMs: number): Promise<void> {
  if (!dated) {
    dated = true
    const create = Items.prototype.create
    Items.prototype.create = function (this: Items<never, never>, data: Record<string, unknown>) {
      const { createdAtMs, ...rest } = data
      if (typeof createdAtMs !== 'number') return create.call(this, data)
      const now = Date.now
      Date.now = () => createdAtMs
      try {
        return create.call(this, rest)
      } finally {
        Date.now = now
      }
    }
  }
  await container.items.create({ ...item, createdAtMs: atMs })
}

/** Sets the container's `defaultTtl` (`null`: TTL off, the field removed), keeping its items. */
export async function setContainerTtl(container: Container, value: number | null): Promise<void> {
  const { resource } = await container.read()
  const { defaultTtl: _old, ...definition } = resource!
  await container.replace({ ...definition, ...(value !== null && { defaultTtl: value }) } as never)
}
