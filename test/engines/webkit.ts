// Debian's WebKitGTK (Safari's engine): its MiniBrowser driven by WebKitWebDriver over classic W3C
// WebDriver, under xvfb-run because MiniBrowser has no headless mode.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { MINIBROWSER_PATH, WEBKIT_DRIVER_PATH, XVFB_RUN_PATH } from '../../scripts/browsers.mjs'
import type { EngineWindow } from './driver.js'

const STARTUP_TIMEOUT_MS = 30_000

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Ends xvfb-run and all it started (Xvfb, the driver, MiniBrowser): they share its process group. */
function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.pid === undefined) return
  try {
    process.kill(-child.pid, 'SIGTERM')
  } catch {
    // already gone
  }
}

export async function launchWebKit(): Promise<EngineWindow> {
  const port = await freePort()
  const driver = spawn(XVFB_RUN_PATH, ['-a', WEBKIT_DRIVER_PATH, `--port=${port}`], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  driver.stderr!.on('data', (chunk) => void (stderr = (stderr + chunk).slice(-4000)))
  const onExit = () => killGroup(driver)
  process.once('exit', onExit)
  const base = `http://127.0.0.1:${port}`

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const { value } = (await response.json()) as { value: T & { error?: string; message?: string } }
    if (!response.ok) throw new Error(`WebKitWebDriver ${method} ${path}: ${value.error}: ${value.message}`)
    return value
  }

  try {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS
    for (;;) {
      if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${stderr}`)
      if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not answer on port ${port} within ${STARTUP_TIMEOUT_MS} ms: ${stderr}`)
      if (await fetch(`${base}/status`).then((r) => r.ok, () => false)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // Popups allowed: tests open a second page of the app with window.open, with no user gesture.
    const session = await call<{ sessionId: string; capabilities: { browserVersion: string } }>('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation', '--javascript-can-open-windows-automatically=true'] },
          timeouts: { script: 120_000, pageLoad: 300_000 },
        },
      },
    })
    const path = `/session/${session.sessionId}`
    return {
      version: `WebKitGTK ${session.capabilities.browserVersion}`,
      goto: async (url) => void (await call('POST', `${path}/url`, { url })),
      async evaluate(fn, ...args) {
        // Classic WebDriver has no promise support of its own: settle through the async callback.
        const script = `const done = arguments[arguments.length - 1];
          Promise.resolve().then(() => (${fn.toString()}).apply(null, Array.from(arguments).slice(0, -1)))
            .then((value) => done({ value }), (error) => done({ error: String(error && error.stack || error) }))`
        const result = await call<{ value?: never; error?: string }>('POST', `${path}/execute/async`, { script, args })
        if (result.error !== undefined) throw new Error(`in WebKit: ${result.error}`)
        return result.value as never
      },
      async close() {
        await call('DELETE', path).catch(() => {})
        killGroup(driver)
        process.off('exit', onExit)
      },
    }
  } catch (error) {
    killGroup(driver)
    process.off('exit', onExit)
    throw error
  }
}
