// Debian's WebKitGTK (Safari's engine): its MiniBrowser driven by WebKitWebDriver over classic W3C
// WebDriver, under xvfb-run because MiniBrowser has no headless mode. Used by the browser tests
// (test/engines/provider.ts) and the benchmark.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { MINIBROWSER_PATH, WEBKIT_DRIVER_PATH, XVFB_RUN_PATH } from './browsers.mjs'

const STARTUP_TIMEOUT_MS = 30_000

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Ends xvfb-run and all it started (Xvfb, the driver, MiniBrowser): they share its process group. */
function killGroup(child) {
  if (child.exitCode !== null || child.pid === undefined) return
  try {
    process.kill(-child.pid, 'SIGTERM')
  } catch {
    // already gone
  }
}

export async function launchWebKit({ args = [], env = {} } = {}) {
  const port = await freePort()
  const driver = spawn(XVFB_RUN_PATH, ['-a', WEBKIT_DRIVER_PATH, `--port=${port}`], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  })
  let stderr = ''
  driver.stderr.on('data', (chunk) => void (stderr = (stderr + chunk).slice(-4000)))
  const onExit = () => killGroup(driver)
  process.once('exit', onExit)
  const base = `http://127.0.0.1:${port}`

  async function call(method, path, body) {
    const response = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const { value } = await response.json()
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
    const session = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation', ...args] },
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
        const result = await call('POST', `${path}/execute/async`, { script, args })
        if (result.error !== undefined) throw new Error(`in WebKit: ${result.error}`)
        return result.value
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
