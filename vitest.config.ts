import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium.mjs'
import { cosmosCommands } from './test/cosmos/control.js'
import { cosmosDevProxy } from './test/cosmos/dev-proxy.js'
import { engine } from './test/engines/provider.js'
import { webkitDiskCommands, webkitOnDisk } from './test/engines/webkit-disk.js'

/**
 * The same browser test files in each engine: one project per engine, named after it. `webkit-disk`
 * is WebKit with IndexedDB on disk (SQLite, as in Safari's normal windows), where `webkit` has it in
 * memory (as in Safari's private windows): see test/engines/webkit-disk.ts.
 */
function browserProject(name: 'chromium' | 'firefox' | 'webkit' | 'webkit-disk'): TestProjectInlineConfiguration {
  return {
    // test/cosmos: the page's SDK reaches the in-process Cosmos DB servers through this dev server.
    // test/browser/bindings: Svelte components compiled for idb-ttl/svelte's tests.
    plugins: [cosmosDevProxy(), svelte({ configFile: false })],
    // Vue's esm-bundler build asks for its compile-time flags (idb-ttl/vue's tests).
    define: { __VUE_OPTIONS_API__: 'true', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    // Imported by a service worker only (test/browser/realms/workbox-sw.ts), which the scan of the
    // test files does not reach: found at run time, they would make Vite reload the tests.
    // The frameworks of test/browser/bindings, optimized at start rather than found mid-run.
    optimizeDeps: { include: ['workbox-expiration', 'workbox-strategies', 'react', 'react-dom/client', 'vue', 'svelte', 'svelte/store'] },
    test: {
      name,
      include: ['test/**/*.test.ts'],
      // *.node.test.ts need Node (a second realm through vi.resetModules; a child node process).
      exclude: ['test/e2e/**', 'test/consumer/**', 'test/**/*.node.test.ts'],
      // WebKit is the slowest engine here: the 20,000-item purges worker.test.ts had took about
      // 12 s in its in-memory backend (30-190 s while expiry marks were near-unique: each delete
      // walks every distinct key of an index there) and 20-30 s on disk at a load average of 10;
      // its 5,000-item ones now take 2-3 s in memory.
      ...((name === 'webkit' || name === 'webkit-disk') && { testTimeout: 120_000 }),
      browser: {
        enabled: true,
        headless: true,
        screenshotFailures: false,
        provider:
          name === 'chromium'
            ? playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } })
            : name === 'webkit-disk'
              ? webkitOnDisk()
              : engine(name),
        commands: { ...cosmosCommands, ...(name === 'webkit-disk' && webkitDiskCommands) },
        // server.browser is the engine's name in the tests: 'webkit' in both WebKit projects (this one
        // is listed as `webkit-disk (webkit)`; `--project webkit-disk` selects it).
        instances: [{ browser: name === 'webkit-disk' ? 'webkit' : name }],
      },
    },
  }
}

export default defineConfig({
  // Several checkouts sharing one node_modules (git worktrees) each keep their own Vite cache.
  ...(process.env.VITE_CACHE_DIR && { cacheDir: process.env.VITE_CACHE_DIR }),
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/browser/**', 'test/consumer/**'],
          setupFiles: ['test/setup-node.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'consumer',
          environment: 'node',
          include: ['test/consumer/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      browserProject('chromium'),
      browserProject('firefox'),
      browserProject('webkit'),
      browserProject('webkit-disk'),
    ],
  },
})
