/**
 * Section 9's storage figures: what `db.storage()` says of each database (the bucket it lives in,
 * `persisted`, usage and quota, what the platform lacks), and a button for `requestPersistence()`.
 */
import { requestPersistence, type StorageStatus, type TtlDB } from '../src/index.js'
import { h, setText } from './dom.js'

function describe(status: StorageStatus): string {
  const where = status.bucket === null ? 'the default bucket' : `Storage Bucket "${status.bucket}"`
  const kb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024).toLocaleString()} kB`)
  const lacks = status.missing.includes('storageBuckets') ? ' (this browser has no Storage Buckets: the database lives in the default bucket)' : ''
  return `${where}${lacks} · persisted: ${status.persisted ?? 'unknown'} · usage ${kb(status.usage)} of ${kb(status.quota)}${status.missing.length ? ` · missing: ${status.missing.join(', ')}` : ''}`
}

/** Shows `db.storage()` of each database, read again after asking for persistence. */
export function mountStorage(root: HTMLElement, databases: { label: string; db: TtlDB<unknown> }[]): void {
  const rows = databases.map(({ label, db }) => {
    const text = h('code', { 'data-testid': 'storage-status' })
    const row = h('li', { 'data-db': label }, h('b', undefined, `${label}: `), text)
    return { row, read: () => db.storage().then((status) => ((row.dataset.bucket = status.bucket ?? 'default'), setText(text, describe(status)))) }
  })
  const answer = h('span', { class: 'hint' })
  const ask = h('button', { type: 'button', 'data-testid': 'storage-persist' }, 'requestPersistence()')
  ask.addEventListener('click', async () => {
    const { persisted, supported } = await requestPersistence()
    setText(answer, supported ? ` persisted: ${persisted}` : ' this browser cannot ask')
    await Promise.all(rows.map((r) => r.read()))
  })
  root.replaceChildren(h('ul', { class: 'storage', 'data-testid': 'storage' }, ...rows.map((r) => r.row)), h('p', undefined, ask, answer))
  void Promise.all(rows.map((r) => r.read()))
}
