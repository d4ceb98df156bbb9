/// <reference types="vite-plugin-pwa/vanillajs" />
/**
 * Section 6: the demo's service worker (demo/sw.ts). Registers it, and once it controls the page
 * fetches `api/quotes` through it: the panel shows who answered (the network, Cache Storage while
 * the response's idb-ttl entry lives, or "offline"), the quotes, and how long the cached copy may
 * still be served.
 */
import { registerSW } from 'virtual:pwa-register'
import { formatSeconds, h, setText } from './dom.js'

const API = './api/quotes'

interface Answer {
  servedBy: string
  status: number
  /** When the cached copy expires, by the worker's clock, less its clock when it answered: ms left. */
  leftMs: number | undefined
  receivedAt: number
  body: { n?: number; quotes?: string[]; message?: string }
}

export function mountOffline(root: HTMLElement): void {
  const worker = h('p', { class: 'hint', 'data-testid': 'sw-state' }, 'Registering the service worker…')
  const button = h('button', { type: 'button', 'data-testid': 'sw-fetch' }, `Fetch ${API.slice(2)}`)
  const source = h('p', { 'data-testid': 'sw-source' })
  const left = h('p', { class: 'hint', 'data-testid': 'sw-left' })
  const list = h('ul', { class: 'sw-quotes', 'data-testid': 'sw-quotes' })
  const panel = h('div', { class: 'sw-panel', 'data-testid': 'sw-panel', 'data-state': 'waiting' }, worker, button, source, left, list)
  root.replaceChildren(panel)

  let answer: Answer | undefined
  let ticker: ReturnType<typeof setInterval> | undefined
  const tick = () => {
    if (!answer || answer.leftMs === undefined) return setText(left, '')
    const ms = answer.leftMs - (performance.now() - answer.receivedAt)
    setText(left, ms > 0 ? `Cached copy served for ${formatSeconds(ms)} more when the network fails` : 'Expired: the cached copy is never served again (it leaves Cache Storage with the next request)')
  }

  async function load(): Promise<void> {
    button.disabled = true
    panel.dataset.state = 'loading'
    try {
      const response = await fetch(API)
      const expiresAt = Number(response.headers.get('x-expires-at'))
      const now = Number(response.headers.get('x-now'))
      answer = {
        servedBy: response.headers.get('x-served-by') ?? 'network (not through the worker)',
        status: response.status,
        leftMs: response.headers.has('x-expires-at') ? expiresAt - now : undefined,
        receivedAt: performance.now(),
        body: (await response.json()) as Answer['body'],
      }
      panel.dataset.servedBy = answer.servedBy
      panel.dataset.n = String(answer.body.n ?? '')
      setText(source, answer.status === 200 ? `Response #${answer.body.n}, served by: ${answer.servedBy}` : `${answer.status}, served by: ${answer.servedBy}. ${answer.body.message ?? ''}`)
      list.replaceChildren(...(answer.body.quotes ?? []).map((quote) => h('li', { 'data-testid': 'sw-quote' }, quote)))
      panel.dataset.state = 'done'
    } catch (error) {
      answer = undefined
      delete panel.dataset.servedBy
      setText(source, `The fetch failed: ${(error as Error).message}`)
      list.replaceChildren()
      panel.dataset.state = 'failed'
    } finally {
      button.disabled = false
      tick()
      ticker ??= setInterval(tick, 250)
    }
  }
  button.addEventListener('click', () => void load())

  const controlled = () => {
    const shell = import.meta.env.DEV ? 'The dev server precaches nothing: build the demo to load it offline.' : 'It precached the page, which loads offline.'
    setText(worker, `The service worker controls this page: it answers the API with Workbox's NetworkFirst and idb-ttl's TtlExpirationPlugin, from Cache Storage when the network fails, while the copy's entry lives. ${shell}`)
    panel.dataset.worker = 'controlling'
    void load()
  }
  if (!('serviceWorker' in navigator)) {
    setText(worker, 'This browser has no service workers here: the API comes straight from the network.')
    void load()
    return
  }
  if (navigator.serviceWorker.controller) controlled()
  else navigator.serviceWorker.addEventListener('controllerchange', controlled, { once: true })
  registerSW({
    immediate: true,
    onRegisterError(error: Error) {
      navigator.serviceWorker.removeEventListener('controllerchange', controlled)
      setText(worker, `The service worker could not be registered (${error?.message ?? error}): the API comes straight from the network.`)
      panel.dataset.worker = 'failed'
      void load()
    },
  })
}
