/** The BroadcastChannels that tie a database's handles together across tabs, opened one way. */

/**
 * A channel named `name`, or `undefined` where there is no BroadcastChannel. It does not keep a
 * Node process alive: a handle that was never closed must not stop a script from exiting
 * (browsers have no `unref`).
 */
export function openChannel(name: string): BroadcastChannel | undefined {
  if (typeof BroadcastChannel !== 'function') return undefined
  const channel = new BroadcastChannel(name)
  ;(channel as { unref?: () => void }).unref?.()
  return channel
}
