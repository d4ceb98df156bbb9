/**
 * How every comparison is measured: ours and its peers run in rounds whose order alternates
 * (ABBA: ours first in even rounds, last in odd ones), each trial on its own freshly seeded
 * database, and the result is the median of the per-round ratios ours / peer. Rounds continue
 * until every median's 95% confidence interval is narrow enough or the budget runs out.
 * Runs in the page and in Node alike.
 */

/** One row of `bench/results.json`. `ratio = ours / peer`: lower is better. */
export interface Row {
  id: string
  /** `null`: not measurable in this engine (e.g. long tasks outside Chromium). */
  ours: number | null
  peer: number | null
  peerName: string
  unit: string
  ratio: number | null
  target: string
  pass: boolean
  /** How many ABBA rounds (pairs ours/peer) the median ratio comes from; absent: one measurement. */
  pairs?: number
  /** 95% confidence interval of the median ratio, by order statistics. */
  ci?: [number, number]
}

/** A prepared trial: the timed part on its freshly seeded database, and the teardown. */
export interface Prepared<T> {
  run: () => Promise<T>
  drop: () => Promise<void>
}

/** A trial: prepares its own fresh database and returns what to time on it. */
export type Trial<T = number> = () => Promise<Prepared<T>>

/** A fresh database, ready to use, and how to delete it. */
export interface Fresh<D> {
  db: D
  drop: () => Promise<void>
}

/** The trial that times `measure` on the database `open` creates. */
export function trial<D, T>(open: () => Promise<Fresh<D>>, measure: (db: D) => Promise<T>): Trial<T> {
  return async () => {
    const { db, drop } = await open()
    return { run: () => measure(db), drop }
  }
}

export interface PairOptions {
  /** Rounds always run before the stop rule is consulted (default 6). */
  minPairs?: number
  /** Rounds never exceeded (default 20). */
  maxPairs?: number
  /** Stop once every CI is at most this fraction of its median ratio wide (default 0.1). */
  tolerance?: number
  /** Stop after this much wall time, once `minPairs` ran (default 60 s). */
  budgetMs?: number
  /** Run one discarded round first, for the JIT (default true; pointless for long trials). */
  warmup?: boolean
  /** Stop at the budget even before `minPairs` ran (after one ABBA pair at least; default false). */
  strictBudget?: boolean
}

export interface Comparison {
  /** Median of our trials. */
  ours: number
  /** Median of the peer's trials. */
  peer: number
  /** Median of the per-pair ratios ours / peer. */
  ratio: number
  ci: [number, number]
  pairs: number
}

/**
 * Caps on every comparison's rounds, from the page's query string (`?maxPairs=10&budgetMs=20000`):
 * `scripts/bench.mjs` shortens the runs in the engines other than Chromium, so that three engines
 * fit in one `npm run bench`. A budget given there is strict. None in Node, nor on a page without.
 */
function capped(options: Required<PairOptions>): Required<PairOptions> {
  const query = new URLSearchParams(globalThis.location?.search ?? '')
  const capped = { ...options }
  for (const name of ['maxPairs', 'budgetMs'] as const) {
    const cap = query.get(name)
    if (cap !== null) capped[name] = Math.min(options[name], Number(cap))
  }
  if (query.has('budgetMs')) capped.strictBudget = true
  return capped
}

/** Every trial's measurement, round by round: `ours[i]` and each `peers[p][i]` ran in round i. */
export interface Trials<T> {
  ours: T[]
  peers: T[][]
}

function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** The p-th percentile (0..100) by linear interpolation between closest ranks. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const at = ((sorted.length - 1) * p) / 100
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low)
}

/** 95% CI of the median: the order statistics n/2 ± 0.98·√n (distribution-free). */
function medianCi(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  const half = 0.98 * Math.sqrt(n)
  const lo = Math.max(0, Math.floor(n / 2 - half))
  const hi = Math.min(n - 1, Math.ceil(n / 2 + half) - 1)
  return [sorted[lo], sorted[hi]]
}

/** How ours compared with peer `p` on one measure (`value`) of the trials. */
export function compareBy<T>(trials: Trials<T>, p: number, value: (trial: T) => number): Comparison {
  const a = trials.ours.map(value)
  const b = trials.peers[p].map(value)
  const ratios = a.map((x, i) => x / b[i])
  return { ours: median(a), peer: median(b), ratio: median(ratios), ci: medianCi(ratios), pairs: ratios.length }
}

/** Runs a round's trials one after the other: each prepared, timed, then dropped. */
async function round<T>(trials: Trial<T>[]): Promise<T[]> {
  const results: T[] = []
  for (const t of trials) {
    const prepared = await t()
    try {
      results.push(await prepared.run())
    } finally {
      await prepared.drop()
    }
  }
  return results
}

/**
 * Runs ours and its peers in rounds whose order alternates (A B C, then C B A: ABBA against
 * each peer), until every peer's median ratio of `value` is stable or the budget is spent;
 * always after an even number of rounds, so each trial ran first as often as last.
 */
export async function roundTrials<T>(
  ours: Trial<T>,
  peers: Trial<T>[],
  value: (trial: T) => number,
  options: PairOptions = {},
): Promise<Trials<T>> {
  const defaults = { minPairs: 6, maxPairs: 20, tolerance: 0.1, budgetMs: 60_000, warmup: true, strictBudget: false }
  const { minPairs, maxPairs, tolerance, budgetMs, warmup, strictBudget } = capped({ ...defaults, ...options })
  const order = [ours, ...peers]
  if (warmup) await round(order)
  const started = performance.now()
  const trials: Trials<T> = { ours: [], peers: peers.map(() => []) }
  for (let r = 0; r < maxPairs; r++) {
    const forward = r % 2 === 0
    const results = await round(forward ? order : [...order].reverse())
    if (!forward) results.reverse()
    trials.ours.push(results[0])
    peers.forEach((_, p) => trials.peers[p].push(results[p + 1]))
    if (r % 2 === 0) continue
    const spent = performance.now() - started > budgetMs
    if (r + 1 < minPairs && !(spent && strictBudget)) continue
    const stable = peers.every((_, p) => {
      const { ci, ratio } = compareBy(trials, p, value)
      return ci[1] - ci[0] <= tolerance * ratio
    })
    if (stable || spent) break
  }
  return trials
}

/** Compares ours with each peer, trials that each measure one number (ms), in ABBA rounds. */
export async function compareAll(ours: Trial, peers: Trial[], options: PairOptions = {}): Promise<Comparison[]> {
  const same = (x: number) => x
  const trials = await roundTrials(ours, peers, same, options)
  return peers.map((_, p) => compareBy(trials, p, same))
}

/**
 * The median milliseconds of `reps` sequential calls of `operation(i)`; the first call's result
 * must pass `check`: a benchmark that does the wrong work measures nothing.
 */
export async function medianTime<T>(
  reps: number,
  operation: (i: number) => Promise<T>,
  check: (result: T) => boolean,
): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < reps; i++) {
    const start = performance.now()
    const result = await operation(i)
    times.push(performance.now() - start)
    if (i === 0 && !check(result)) throw new Error('a benchmark operation returned a wrong result')
  }
  return median(times)
}

/** A target, judged on the median ratio ours / peer or on our own median. */
export interface Target {
  text: string
  pass: (ratio: number, ours: number) => boolean
}

export const atMost = (max: number, of: string): Target => ({ text: `≤ ${max}× ${of}`, pass: (r) => r <= max })
export const timesFaster = (factor: number): Target => ({
  text: `≥ ${factor}× faster (ratio ≤ ${(1 / factor).toFixed(2)})`,
  pass: (r) => r <= 1 / factor,
})
export const FASTER: Target = { text: 'faster (ratio < 1)', pass: (r) => r < 1 }
export const REFERENCE: Target = { text: 'reference only', pass: () => true }
/** An absolute bound on our own median, e.g. `p99 ≤ 20 ms`. */
export const oursAtMost = (max: number, text: string): Target => ({ text, pass: (_, ours) => ours <= max })

/** A results row from a comparison. */
export function ratioRow(id: string, peerName: string, unit: string, c: Comparison, target: Target): Row {
  return {
    id,
    ours: c.ours,
    peer: c.peer,
    peerName,
    unit,
    ratio: c.ratio,
    target: target.text,
    pass: target.pass(c.ratio, c.ours),
    pairs: c.pairs,
    ci: c.ci,
  }
}
