/**
 * Whether two `db.live` options objects ask for the same query, compared by value: an object
 * literal written inline in a component is a new object at each render, and must not start a new
 * query. Keys are compared as IndexedDB sees them (a Date by its time, a buffer by its bytes, a
 * key range by its bounds).
 */
export function sameOptions(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  if (a instanceof Date) return a.getTime() === (b as Date).getTime()
  if (ArrayBuffer.isView(a) || a instanceof ArrayBuffer) return sameOptions([...bytes(a)], [...bytes(b as typeof a)])
  // An IDBKeyRange (its bounds are getters of its prototype, not own properties).
  if ('lowerOpen' in a) return (['lower', 'upper', 'lowerOpen', 'upperOpen'] as const).every((bound) => sameOptions((a as IDBKeyRange)[bound], (b as IDBKeyRange)[bound]))
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameOptions(a[key as keyof typeof a], b[key as keyof typeof b]))
}

function bytes(source: ArrayBufferView | ArrayBuffer): Uint8Array {
  return ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : new Uint8Array(source)
}
