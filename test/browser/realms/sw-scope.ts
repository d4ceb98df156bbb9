/**
 * The parts of ServiceWorkerGlobalScope the test service workers use (the project's lib is DOM's,
 * not WebWorker's), typed by the message data each one takes: store-sw.ts, workbox-sw.ts.
 */
export interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}

export interface ExtendableMessageEvent<Data> extends ExtendableEvent {
  data: Data
  ports: readonly MessagePort[]
}

/** This service worker's global scope, its messages carrying `Data`. */
export function serviceWorker<Data>() {
  return self as unknown as {
    skipWaiting(): Promise<void>
    addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void
    addEventListener(type: 'message', listener: (event: ExtendableMessageEvent<Data>) => void): void
  }
}
