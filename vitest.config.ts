import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium.mjs'
import { engine } from './test/engines/provider.js'

/** The same browser test files in each engine: one project per engine, named after it. */
function browserProject(name: 'chromium' | 'firefox' | 'webkit'): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      include: ['test/**/*.test.ts'],
      // *.node.test.ts need Node (a second realm through vi.resetModules; a child node process).
      exclude: ['test/e2e/**', 'test/consumer/**', 'test/**/*.node.test.ts'],
      // WebKit's automated MiniBrowser is the slowest engine here: the 20,000-item purges of
      // worker.test.ts take about 12 s there (30-190 s while expiry marks were near-unique: each
      // delete walks every distinct key of an index in its in-memory backend).
      ...(name === 'webkit' && { testTimeout: 120_000 }),
      browser: {
        enabled: true,
        headless: true,
        screenshotFailures: false,
        provider:
          name === 'chromium'
            ? playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } })
            : engine(name),
        instances: [{ browser: name }],
      },
    },
  }
}

export default defineConfig({
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
    ],
  },
})
