// Node only (it bundles with esbuild). scripts/size-features.mjs, which measures what each feature adds to an app of idb-ttl/core (the
// bench's `size` rows): its cuts still find what they cut, each saves bytes, and together they cut
// nothing an app of idb-ttl/core carries.
import { expect, test } from 'vitest'
import { cut, featureSizes } from '../scripts/size-features.mjs'

test('every feature cut out of the idb-ttl app saves bytes, and all of them together leave no less than the idb-ttl/core app', { timeout: 60_000 }, async () => {
  const { full, core, features, allCuts } = await featureSizes()
  expect(full).toBeGreaterThan(core)
  for (const feature of features) expect(feature.bytes, feature.name).toBeGreaterThan(0)
  // A cut of code the core app also carries would take the full app below it.
  expect(full - allCuts).toBeGreaterThanOrEqual(core)
})

test('a cut stubs the exports and drops the members it names, and throws for one it does not find', () => {
  const code = 'export class A {\n  keep() {}\n  drop() {}\n}\nexport function f() {\n  return 1\n}\nexport const c = 2\n'
  const out = cut(code, 'm.ts', ['f', 'c'], { A: ['drop'] })
  expect(out).toContain('keep()')
  expect(out).not.toContain('drop()')
  expect(out).toContain('export function f() {}')
  expect(out).toContain('export const c = undefined')
  expect(() => cut(code, 'm.ts', ['g'])).toThrow(/nothing to cut for g/)
  expect(() => cut(code, 'm.ts', [], { A: ['gone'] })).toThrow(/nothing to cut for A\.gone/)
})
