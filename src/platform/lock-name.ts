/**
 * A database's name as the library's Web Lock names carry it (`idb-ttl:settings:<name>`,
 * `idb-ttl:live:<name>:<realm>`…): URI-encoded, so that no name reads as the start of another's
 * (`a` and `a:b`). A name with a lone surrogate, which IndexedDB takes and `encodeURIComponent`
 * refuses (`URIError`), is `escape`d instead: its lone surrogate becomes `%uD800`, which no
 * URI-encoded name holds, so the two kinds of names never meet.
 */
export function lockSafe(name: string): string {
  try {
    return encodeURIComponent(name)
  } catch {
    return escape(name)
  }
}
