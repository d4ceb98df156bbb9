/**
 * Changing a container's `defaultTtl` on the in-process test server, as `Container.replace`
 * does on Cosmos DB (where the items stay). The test server's replace of a collection sets a new,
 * empty collection in its place: every item is lost. `keepItemsOnReplace()` makes it carry the
 * items (and user-defined functions) over, for the test file that calls it: the server lives in
 * that file's module graph.
 */
import type { Container } from '@azure/cosmos'
import Collections from '@vercel/cosmosdb-server/lib/account/collections.js'

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

/** Sets the container's `defaultTtl` (`null`: TTL off, the field removed), keeping its items. */
export async function setContainerTtl(container: Container, value: number | null): Promise<void> {
  const { resource } = await container.read()
  const { defaultTtl: _old, ...definition } = resource!
  await container.replace({ ...definition, ...(value !== null && { defaultTtl: value }) } as never)
}
