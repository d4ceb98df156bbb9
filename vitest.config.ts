import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium.mjs'

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/browser/**'],
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
          name: 'chromium',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
})
