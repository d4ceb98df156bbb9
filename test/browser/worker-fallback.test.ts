// A purge worker whose script does not load, in a real browser: the purge runs on the page
// instead (the inline mode's code), and the console says so once, naming the URL and what to do.
// The last test puts a Content-Security-Policy on this file's page, which cannot be taken back.
import { afterEach, expect, test, vi } from 'vitest'
import { expireOneInTheBackground } from '../helpers.js'

const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 })

let restore: (() => void)[] = []
afterEach(() => restore.splice(0).forEach((undo) => undo()))

/** Spies on `console.warn` (the messages still print). */
function spyWarnings(): string[][] {
  const spy = vi.spyOn(console, 'warn')
  restore.push(() => spy.mockRestore())
  return spy.mock.calls as string[][]
}

/** Counts the workers the page starts; `redirect` sends each to another script URL. */
function countWorkers(redirect?: () => URL): { started: number } {
  const Original = globalThis.Worker
  const count = { started: 0 }
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(redirect ? redirect() : url, options)
      count.started++
    }
  }
  restore.push(() => void (globalThis.Worker = Original))
  return count
}

/**
 * Writes an item that expires in 1 s and one that never does, moves the clock on, and waits until
 * the background purge has deleted the first from the disk; then has `purgeExpired` (or a slice
 * before it) delete one more. Resolves to what `onPurge` heard and the database's name.
 */
async function purgesOnThePage() {
  const { db, clock, reports } = await expireOneInTheBackground(15_000)
  await db.put('s', { id: 'gone too', ttl: 1 })
  clock.advance(5_000)
  // Gone from the disk once purgeExpired resolved. Not its count: the background slice the write
  // woke judges by the clock when its batch runs (#42), so it may delete the item first; the
  // reports below count both deletions, whoever made them.
  expect(await db.purgeExpired('s')).toBeLessThanOrEqual(1)
  expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
  // A slice reports after its last batch has committed: the disk empties first.
  await until(() => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(2))
  return { reports, name: db.raw.name }
}

test('a worker whose script is a 404 hands the purge to the page: expired items are deleted, no worker is tried again, and the console says so once', async () => {
  const warnings = spyWarnings()
  const workers = countWorkers(() => new URL(`/no-such-purge-worker-${crypto.randomUUID()}.js`, location.origin))
  const { reports, name } = await purgesOnThePage()
  expect(reports.filter((r) => r.error)).toEqual([])
  expect(workers.started).toBe(1)
  const ours = warnings.filter(([message]) => String(message).startsWith('idb-ttl:'))
  expect(ours).toHaveLength(1)
  // The URL the library asked for (this test's spy sent the browser elsewhere).
  expect(ours[0][0]).toMatch(/^idb-ttl: the purge worker could not be started from http:\/\/\S+\/purge-worker\.ts\S*: its script did not load/)
  expect(ours[0][0]).toContain(`"${name}"`)
  expect(ours[0][0]).toContain('dist/purge-worker.js')
  expect(ours[0][0]).toContain("mode: 'inline'")
})

test('a Content-Security-Policy that forbids workers: the purge runs on the page, and the console names the URL it refused, once', async () => {
  const meta = document.createElement('meta')
  meta.httpEquiv = 'Content-Security-Policy'
  meta.content = "worker-src 'none'"
  document.head.append(meta)
  const warnings = spyWarnings()
  const refused: string[] = []
  const onViolation = (event: SecurityPolicyViolationEvent) => void refused.push(event.blockedURI)
  document.addEventListener('securitypolicyviolation', onViolation)
  restore.push(() => document.removeEventListener('securitypolicyviolation', onViolation))
  const { reports } = await purgesOnThePage()
  expect(reports.filter((r) => r.error)).toEqual([])
  const ours = warnings.filter(([message]) => String(message).startsWith('idb-ttl:'))
  expect(ours).toHaveLength(1)
  expect(refused).toHaveLength(1)
  expect(ours[0][0]).toContain(`could not be started from ${refused[0]}`)
})
