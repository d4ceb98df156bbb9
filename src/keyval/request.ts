/**
 * Turns an IndexedDB request (its result) or transaction (its completion) into a promise, as
 * idb-keyval's `promisifyRequest` does.
 */
export function promisifyRequest<T = undefined>(request: IDBRequest<T> | IDBTransaction): Promise<T> {
  return new Promise((resolve, reject) => {
    // One assignment serves both kinds: a request fires success/error, a transaction complete/abort.
    ;(request as IDBTransaction).oncomplete = (request as IDBRequest).onsuccess = () => resolve((request as IDBRequest<T>).result)
    ;(request as IDBTransaction).onabort = (request as IDBRequest).onerror = () => reject(request.error)
  })
}
