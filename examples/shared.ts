// What the three examples share: a Vite config that takes `idb-ttl` from this repository's src/
// (an app installs the package instead and needs none of it), and the database they open.
import { fileURLToPath } from 'node:url'
import type { Plugin, UserConfig } from 'vite'

const src = (file: string) => fileURLToPath(new URL(`../src/${file}`, import.meta.url))

/** The example's Vite config: `idb-ttl` and `idb-ttl/<framework>` from src/, and the framework's plugins. */
export function exampleConfig(framework: 'react' | 'vue' | 'svelte', plugins: Plugin[] = []): UserConfig {
  return {
    plugins,
    resolve: {
      alias: [
        { find: `idb-ttl/${framework}`, replacement: src(`${framework}.ts`) },
        { find: /^idb-ttl$/, replacement: src('index.ts') },
      ],
    },
    // The purge worker is a module.
    worker: { format: 'es' },
  }
}
