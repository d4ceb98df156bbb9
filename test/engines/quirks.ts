// Engine bugs that some tests cannot pass over, each detected at run time by a probe, so that a
// test is skipped only where the bug is there, and runs again once an engine fixes it.

/**
 * WebKit's on-disk IndexedDB (WebKitGTK 2.50.6, SQLite backend) fails a cursor with direction
 * 'nextunique' over an empty index: the request errors with `UnknownError: Unable to open cursor`
 * (and the transaction aborts) where the in-memory backend, Chromium, Firefox and fake-indexeddb
 * give `null`. 'next' over the same index, and 'nextunique' over an index with a row, work.
 * The library's dropUnreferenced (src/generations/stash.ts) walked the `$gen` index that way, and
 * failed in WebKit on disk once a store keeping its values in generations had no row left; it
 * now steps from key to key with 'next'.
 */
export async function emptyIndexUniqueCursorFails(): Promise<boolean> {
  if (typeof indexedDB === 'undefined') return false
  const name = `probe-unique-cursor-${crypto.randomUUID()}`
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name, 1)
    open.onupgradeneeded = () => open.result.createObjectStore('s').createIndex('i', 'i')
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
  try {
    return await new Promise<boolean>((resolve) => {
      const request = db.transaction('s').objectStore('s').index('i').openKeyCursor(null, 'nextunique')
      request.onsuccess = () => resolve(false)
      request.onerror = (event) => (event.preventDefault(), resolve(request.error?.name === 'UnknownError'))
    })
  } finally {
    db.close()
    await new Promise((resolve) => {
      const deletion = indexedDB.deleteDatabase(name)
      deletion.onsuccess = deletion.onerror = resolve
    })
  }
}
