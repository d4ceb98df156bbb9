/**
 * What the browser says about storage: the origin's usage and quota, and whether a failure was a
 * full disk. Capacity handling (`purge/quota.ts`) and the generations' sizing read it.
 */

/** The origin's storage usage and quota as the browser reports them; `undefined` where it does not. */
export async function storageEstimate(): Promise<StorageEstimate | undefined> {
  try {
    return await globalThis.navigator?.storage?.estimate?.()
  } catch {
    return undefined
  }
}

/** The origin's storage usage as the browser reports it; `undefined` where it does not. */
export async function storageUsage(): Promise<number | undefined> {
  return (await storageEstimate())?.usage
}

/** Whether the browser refused a write for lack of space. */
export function isQuotaError(error: unknown): boolean {
  return (error as DOMException | null)?.name === 'QuotaExceededError'
}
