/**
 * The package as a user gets it: the tarball `npm pack` makes (prepack builds it), installed
 * into a scratch Vite app outside the repo, type-checked (a typed file must pass, and so must
 * every ```ts block of README.md and docs/, each a module of its own; a file with a wrong store
 * name and a string ttl must fail, at those lines), built with `vite build` and served, and
 * served by the Vite dev server; in Debian's Chromium the purge worker shipped in the package
 * must start and delete an expired item.
 */
import { chromium, type Browser } from 'playwright-core'
import { createServer, preview, type PreviewServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'
import type { ConsumerApi } from './app/api.js'
import * as scratch from './scratch.mjs'

declare const consumer: ConsumerApi
const POLL = { timeout: 30_000, interval: 100 }

let base: string | undefined
let packed: scratch.Packed
let app: string
const servers: (PreviewServer | ViteDevServer)[] = []
let browser: Browser | undefined

beforeAll(async () => {
  base = await scratch.scratchDir()
  packed = await scratch.pack(base)
  app = await scratch.scratchApp(base, packed.tarball)
})

afterAll(async () => {
  await browser?.close()
  for (const server of servers) await server.close()
  if (base) await scratch.remove(base)
})

test('the tarball holds the library, its worker, types, source maps, README, LICENSE and package.json, nothing else', async () => {
  const allowed = /^(dist\/.+\.(js|js\.map|d\.ts)|README\.md|LICENSE|package\.json)$/
  expect(packed.files.filter((file) => !allowed.test(file))).toEqual([])
  expect(packed.files).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'README.md',
      'package.json',
      'dist/idb-ttl.js',
      'dist/idb-ttl.js.map',
      'dist/purge-worker.js',
      'dist/purge-worker.js.map',
      'dist/index.d.ts',
    ]),
  )
  const { dir, copied } = await scratch.installed(app)
  expect(copied).toBe(true)
  for (const file of packed.files.filter((f) => f.endsWith('.d.ts'))) {
    expect.soft((await scratch.readText(dir, file)).trim(), file).not.toBe('export {};')
  }
})

test('a typed consumer type-checks against the installed package', async () => {
  const result = await scratch.tsc(app, 'tsconfig.json')
  expect(result.stdout + result.stderr).toBe('')
  expect(result.code).toBe(0)
})

test('blocks are read from markdown with their fence line; a marker right before one leaves it out', () => {
  const markdown = [
    '# Title', // 1
    '```sh', // 2
    '```ts', // 3: inside a shell block, not a block of its own
    '```', // 4
    '```ts', // 5
    'const a = 1', // 6
    '```', // 7
    '<!-- not type-checked: a fragment -->', // 8
    '', // 9
    '```typescript', // 10
    'a.b', // 11
    '```', // 12
    '- item', // 13
    '  ```ts', // 14
    '  const b = 2', // 15
    '  ```', // 16
  ].join('\n')
  expect(scratch.tsBlocks(markdown)).toEqual([
    { line: 5, code: 'const a = 1', skipped: undefined },
    { line: 10, code: 'a.b', skipped: 'a fragment' },
    { line: 14, code: 'const b = 2', skipped: undefined },
  ])
})

test('every ```ts block of README.md and docs/ type-checks against the installed package, each a module of its own', async () => {
  const blocks = await scratch.addDocBlocks(app)
  const checked = blocks.filter((block) => !block.skipped)
  expect(checked.filter((block) => block.source === 'README.md').length, 'README.md has a ```ts block').toBeGreaterThan(0)
  expect(checked.filter((block) => block.source.startsWith('docs/')).length, 'docs/ has ```ts blocks').toBeGreaterThan(0)
  const result = await scratch.tsc(app, 'tsconfig.blocks.json')
  // Each error as `file:line`, the line counted in the markdown file, and the block it is in.
  const failures = scratch
    .tscErrors(result.stdout)
    .map((error) => {
      const block = blocks.find((b) => b.file === error.file)
      const at = block ? { source: block.source, line: block.line + error.line } : { source: error.file, line: error.line }
      const within = block ? ` (the block at line ${block.line})` : ''
      return { ...at, text: `${at.source}:${at.line}${within}: ${error.code} ${error.message}` }
    })
    .sort((a, b) => a.source.localeCompare(b.source) || a.line - b.line)
    .map((failure) => failure.text)
  expect(failures, 'blocks that do not compile').toEqual([])
  expect(result.code, result.stdout + result.stderr).toBe(0)
})

test('a wrong store name and a string ttl fail to type-check, each on its own line and nowhere else', async () => {
  const source = await scratch.readText(app, 'wrong.ts')
  const marked = source.split('\n').flatMap((line, i) => (line.includes('// ✗') ? [i + 1] : []))
  expect(marked).toHaveLength(2)
  const result = await scratch.tsc(app, 'tsconfig.wrong.json')
  const errors = scratch.tscErrors(result.stdout)
  expect(result.code).toBe(2)
  expect(errors.map((e) => e.file)).toEqual(['wrong.ts', 'wrong.ts'])
  expect(errors.map((e) => e.line)).toEqual(marked)
  expect(errors[0].message).toContain('"sesions"')
  expect(errors[1].message).toContain("'string' is not assignable to type 'number'")
})

/**
 * Opens the app at `url` in Chromium, expires an item with the app's clock and waits for the
 * purge worker to delete it physically. Resolves to the URLs of the workers the page started.
 */
async function purgesInChromium(url: string): Promise<string[]> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())))
  const workers: string[] = []
  page.on('worker', (worker) => workers.push(worker.url()))
  await page.goto(url)
  await expect.poll(() => page.locator('#status').textContent(), POLL).toBe('ready')
  await expect.poll(() => page.evaluate(() => consumer.isPurger()), POLL).toBe(true)

  await page.evaluate(() => consumer.expireOne())
  expect(await page.evaluate(() => consumer.live())).toEqual(['kept'])
  await expect.poll(() => page.evaluate(() => consumer.onDisk()), POLL).toEqual(['kept'])

  const reports = await page.evaluate(() => consumer.reports())
  expect(reports.filter((r) => r.error)).toEqual([])
  expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(1)
  expect(errors).toEqual([])
  await page.close()
  return workers
}

test('vite build, served: in Chromium the purge worker from the package starts and deletes an expired item', async () => {
  const dist = await scratch.viteBuild(app)
  const server = await preview({ root: app, configFile: false, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  const workers = await purgesInChromium(server.resolvedUrls!.local[0])
  const worker = workers.find((w) => /\/assets\/purge-worker[-\w]*\.js$/.test(w))
  expect(worker, `workers started: ${workers.join(', ') || 'none'}`).toBeDefined()
  expect(scratch.exists(dist, `assets/${new URL(worker!).pathname.split('/').pop()}`)).toBe(true)
})

test('vite dev server: the worker is served from node_modules/idb-ttl and deletes an expired item', async () => {
  const server = await createServer({ root: app, configFile: false, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } })
  servers.push(server)
  await server.listen()
  const workers = await purgesInChromium(server.resolvedUrls!.local[0])
  expect(workers.map((w) => new URL(w).pathname)).toContain('/node_modules/idb-ttl/dist/purge-worker.js')
})
