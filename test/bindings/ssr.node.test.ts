/**
 * Server-side rendering with the framework bindings, where there is no IndexedDB: React's
 * `renderToString` renders `useLive`'s server snapshot (`undefined`) and never asks the handle for
 * a live query; Vue's `renderToString` renders the ref's `undefined`, and asks nothing either; a
 * Svelte store read once (as a server render reads it) gives `undefined`, and when the promise it
 * was given rejects (openTtlDB where there is no IndexedDB) no error is thrown. The Node project installs fake-indexeddb for every test file (test/setup-node.ts), so the
 * render runs in a child `node` with no such globals, through Vite's module runner.
 */
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { runNodeScript } from '../node-child.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

const child = `
const { runnerImport } = await import('vite')
const load = async (file) => (await runnerImport(${JSON.stringify(root)} + file, { configFile: false, logLevel: 'silent' })).module
const out = { indexedDB: typeof indexedDB }
// A handle as far as the bindings can tell, which records what they ask of it.
const asked = { live: 0, subscribed: 0, ended: 0 }
const handle = {
  live: () => (asked.live++, { subscribe: () => (asked.subscribed++, () => asked.ended++) }),
}

const { createElement } = await import('react')
const { renderToString } = await import('react-dom/server')
const react = await load('src/react.ts')
const Sessions = ({ db }) => {
  const items = react.useLive(db, 'sessions')
  const one = react.useLiveItem(db, 'sessions', 'a')
  return createElement('p', null, items === undefined && one === undefined ? 'loading' : 'items')
}
out.reactHandle = renderToString(createElement(Sessions, { db: handle }))
out.reactAsked = { ...asked }
// What an app passes that opens its database at start-up: here, where there is no IndexedDB, it rejects.
const { openTtlDB } = await load('src/index.ts')
const opening = openTtlDB('app', { version: 1, stores: { sessions: { keyPath: 'id', defaultTtl: 60 } } })
opening.catch(() => {})
out.reactPromise = renderToString(createElement(Sessions, { db: opening }))

const { createSSRApp, h } = await import('vue')
const { renderToString: renderVue } = await import('vue/server-renderer')
const vue = await load('src/vue.ts')
const app = createSSRApp({ setup: () => { const items = vue.useLive(handle, 'sessions'); return () => h('p', items.value === undefined ? 'loading' : 'items') } })
out.vue = await renderVue(app)
out.vueAsked = { live: asked.live - out.reactAsked.live, subscribed: asked.subscribed - out.reactAsked.subscribed, ended: asked.ended - out.reactAsked.ended }
// Svelte's server render subscribes to a store and unsubscribes at once (svelte/store's get does the same).
const { get } = await import('svelte/store')
const svelte = await load('src/svelte.ts')
out.svelte = get(svelte.live(opening, 'sessions')) ?? 'undefined'
// The open's rejection has reached the store's handler (attached first) once it reaches this one:
// a failure it reported there would be an uncaught error, and this process would end without printing.
await opening.catch(() => {})
await null
out.after = typeof indexedDB
console.log(JSON.stringify(out))
`

test('a server render, with no IndexedDB: React renders the server snapshot and asks nothing of the handle; Vue renders undefined and asks nothing either; a Svelte store read once gives undefined, and the failed open of the promise it was given is nobody\'s error', async () => {
  const out = await runNodeScript(child, root)
  expect(out.indexedDB).toBe('undefined')
  expect(out.after).toBe('undefined')
  expect(out.reactHandle).toBe('<p>loading</p>')
  expect(out.reactAsked).toEqual({ live: 0, subscribed: 0, ended: 0 })
  expect(out.reactPromise).toBe('<p>loading</p>')
  expect(out.vue).toBe('<p>loading</p>')
  expect(out.vueAsked).toEqual({ live: 0, subscribed: 0, ended: 0 })
  expect(out.svelte).toBe('undefined')
}, 90_000)
