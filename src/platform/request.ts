/**
 * Promises over native IndexedDB requests. The hot paths use native requests rather than idb's
 * proxies: one promise per request, nothing else.
 */

export function req<T>(request: IDBRequest<T>): Promise<T> {
  const result = new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
  // Requests run side by side in one transaction; when it aborts (a page unloading, a failed
  // request) they all fail, and those the failing operation never came to await must not be
  // reported as unhandled rejections: the operation fails with the error it did await.
  result.catch(() => {})
  return result
}

/** Walks a cursor, keeping what `take` returns (undefined: skip) until `limit` are kept. */
export function walk<C extends IDBCursor, T>(
  request: IDBRequest<C | null>,
  limit: number | undefined,
  take: (cursor: C) => T | undefined,
): Promise<T[]> {
  const out: T[] = []
  return new Promise((resolve, reject) => {
    request.onerror = () => reject(request.error)
    request.onsuccess = () => {
      const cursor = request.result
      if (!cursor) return resolve(out)
      const kept = take(cursor)
      if (kept !== undefined) out.push(kept)
      if (limit !== undefined && out.length >= limit) return resolve(out)
      cursor.continue()
    }
  })
}

/** Resolves when the transaction commits; rejects with its error (or AbortError) otherwise. */
export function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    // A failed request's error reaches the transaction before tx.error is set (that happens on
    // abort, after this event), so take it from the request.
    tx.onerror = (event) => reject((event.target as IDBRequest | null)?.error ?? tx.error)
    tx.onabort = () => reject(tx.error ?? new DOMException('The transaction was aborted', 'AbortError'))
  })
}

/** Aborts a transaction that may already have finished, keeping the original error. */
export function abortQuietly(tx: IDBTransaction): void {
  try {
    tx.abort()
  } catch {
    // InvalidStateError: the transaction already ended; the caller's error is the one to report.
  }
}

/** Whether `key` falls in `query` (a key or a key range); `undefined`/`null` match everything. */
export function inQuery(key: IDBValidKey, query: IDBValidKey | IDBKeyRange | null | undefined): boolean {
  if (query === undefined || query === null) return true
  return query instanceof IDBKeyRange ? query.includes(key) : indexedDB.cmp(key, query) === 0
}

/** A string identifying a key by IndexedDB equality, for sets of keys. */
export function keyId(key: IDBValidKey): string {
  return JSON.stringify(tagKey(key))
}

function tagKey(key: IDBValidKey): unknown {
  if (typeof key === 'number') return ['n', String(key)]
  if (typeof key === 'string') return key
  if (key instanceof Date) return ['d', key.getTime()]
  if (Array.isArray(key)) return ['a', key.map(tagKey)]
  const bytes = ArrayBuffer.isView(key)
    ? new Uint8Array(key.buffer, key.byteOffset, key.byteLength)
    : new Uint8Array(key as ArrayBuffer)
  return ['b', Array.from(bytes).join(',')]
}

/** The key an in-line key path yields for `value`, or `undefined` when the value lacks it. */
export function keyPathValue(value: unknown, keyPath: string | string[]): unknown {
  if (Array.isArray(keyPath)) {
    const parts = keyPath.map((p) => keyPathValue(value, p))
    return parts.includes(undefined) ? undefined : parts
  }
  let current: unknown = value
  for (const step of keyPath === '' ? [] : keyPath.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[step]
  }
  return current
}
