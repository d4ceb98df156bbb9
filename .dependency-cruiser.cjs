/**
 * The house rules of src/, checked by `npm test` (`npm run lint:deps`): folders depend one way,
 * each on those listed before it, and no module cycle. Read the order as the architecture, from
 * the ground floor up; docs/architecture.md says what each folder holds.
 */
const LAYERS = ['rules', 'platform', 'layout', 'generations', 'events', 'reads', 'purge', 'writes', 'transaction', 'background', 'live', 'handle', 'assembly']

const above = (i) => LAYERS.slice(i + 1)

/** An entry of its own (`idb-ttl/<folder>`) that sits on top: nothing else in src/ may use it. */
const onTop = (folder, comment) => ({ name: `${folder}-on-top`, severity: 'error', comment, from: { path: '^src/', pathNot: `^src/${folder}/` }, to: { path: `^src/${folder}/` } })

/** Such an entry uses, of the rest of src/, only `allowed` (a regular expression of paths below src/). */
const usesOnly = (folder, name, allowed, comment) => ({ name, severity: 'error', comment, from: { path: `^src/${folder}/` }, to: { path: `^src/(?!${folder}/|${allowed})` } })

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between modules: one of them belongs in a lower folder, or a shared part in its own module.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...LAYERS.map((layer, i) => ({
      name: `${layer}-looks-down`,
      severity: 'error',
      comment: `src/${layer}/ may use only ${LAYERS.slice(0, i).join(', ') || 'nothing of src'} (folders listed before it), never ${[...above(i), 'the entries (the files at the top of src/)'].join(', ')}.`,
      from: { path: `^src/${layer}/` },
      to: { path: `^src/(${[...above(i)].join('|') || '$^'}/|[^/]+\\.ts$)` },
    })),
    onTop('cosmos', 'src/cosmos/ is the entry idb-ttl/cosmos, on top of everything: no other part of src/ (the main entry least of all) may use it.'),
    onTop('tanstack', 'src/tanstack/ is the entry idb-ttl/tanstack: no other part of src/ may use it.'),
    usesOnly('tanstack', 'tanstack-public-calls-only', 'rules/|assembly/db\\.ts$', "src/tanstack/ works through the handle's public calls: it may use rules/ (TtlError) and the handle's type (assembly/db.ts), nothing else of src/."),
    onTop('workbox', 'src/workbox/ is the entry idb-ttl/workbox: no other part of src/ may use it.'),
    usesOnly(
      'workbox',
      'workbox-rules-and-layout-only',
      'rules/(ttl|resolver|errors|policy|default-change)\\.ts$|platform/request\\.ts$|layout/((expiry|generation)-index|next-death)\\.ts$',
      "src/workbox/ is self-contained (dist/workbox.js imports nothing, issue #44: a few kB in a service worker): its own small store over raw IndexedDB, with the pure rules (rules/ttl.ts, resolver.ts, policy.ts, default-change.ts, errors.ts), the request promises (platform/request.ts) and the names and key ranges of the layout it shares with idb-ttl 0.1's databases (layout/expiry-index.ts, next-death.ts, generation-index.ts), never the handle.",
    ),
    {
      name: 'bindings-on-top',
      severity: 'error',
      comment: 'src/bindings/ and the entries src/react.ts, src/vue.ts, src/svelte.ts are idb-ttl/react, /vue, /svelte: no other part of src/ may use them.',
      from: { path: '^src/', pathNot: '^src/(bindings/|(react|vue|svelte)\\.ts$)' },
      to: { path: '^src/(bindings/|(react|vue|svelte)\\.ts$)' },
    },
    {
      name: 'bindings-public-api-only',
      severity: 'error',
      comment: "The framework bindings (src/react.ts, src/vue.ts, src/svelte.ts, src/bindings/) use the handle's public calls and the public API's types (src/index.ts), nothing else of src/.",
      from: { path: '^src/(bindings/|(react|vue|svelte)\\.ts$)' },
      to: { path: '^src/(?!bindings/|index\\.ts$)' },
    },
    {
      name: 'bindings-import-no-library',
      severity: 'error',
      comment: 'The framework bindings import the public API for its types only: their bundles hold none of the library, which the app imports as idb-ttl (scripts/build-lib.mjs).',
      from: { path: '^src/(bindings/|(react|vue|svelte)\\.ts$)' },
      to: { path: '^src/index\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'keyval-on-top',
      severity: 'error',
      comment: 'src/keyval/ is the entry idb-ttl/keyval (src/keyval.ts): no other part of src/ may use it.',
      from: { path: '^src/', pathNot: '^src/keyval(/|\\.ts$)' },
      to: { path: '^src/keyval(/|\\.ts$)' },
    },
    {
      name: 'keyval-rules-only',
      severity: 'error',
      comment:
        "idb-ttl/keyval (src/keyval.ts, src/keyval/) is self-contained and 1.5 kB: of the rest of src/ it uses the pure resolver and TtlError (rules/ttl.ts, rules/resolver.ts, rules/errors.ts), never the handle or anything that brings it in.",
      from: { path: '^src/keyval(/|\\.ts$)' },
      to: { path: '^src/(?!keyval/|rules/(ttl|resolver|errors)\\.ts$)' },
    },
    {
      name: 'workbox-imports-no-workbox',
      severity: 'error',
      comment: 'workbox-core and serwist are optional peers: src/workbox/ types its callbacks structurally (types.ts) and imports neither.',
      from: { path: '^src/' },
      to: { path: '(^|/)node_modules/(workbox-|serwist|@serwist/)' },
    },
    {
      name: 'cosmos-sdk-types-only',
      severity: 'error',
      comment: '@azure/cosmos is an optional peer: the app passes its Container, src/ imports its types only.',
      from: { path: '^src/' },
      to: { path: '@azure/cosmos', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-is-self-contained',
      severity: 'error',
      comment: 'The library does not reach into tests, the demo, benchmarks or scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|demo|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
