/**
 * How every comparison is measured: trials in ABBA order (ours first in even pairs, the peer
 * first in odd ones), each trial on its own freshly seeded database, and the median of the
 * per-pair ratios. Pairs continue until the median's 95% confidence interval is narrow enough
 * or the pair budget runs out. Runs in the page and in Node alike.
 */

/** One row of `bench/results.json`. `ratio = ours / peer`: lower is better. */
export interface Row {
  id: string
  ours: number
  peer: number | null
  peerName: string
  unit: string
  ratio: number | null
  target: string
  pass: boolean
  /** How many ABBA pairs the median ratio comes from (absent: a single measurement). */
  pairs?: number
  /** 95% confidence interval of the median ratio, by order statistics. */
  ci?: [number, number]
}

/** A trial: sets up its own fresh database, measures, tears down; resolves to the measurement. */
export type Trial = () => Promise<number>

export interface PairOptions {
  /** Pairs always run, before the stop rule is consulted (default 6). */
  minPairs?: number
  /** Pairs never exceeded (default 20). */
  maxPairs?: number
  /** Stop once the CI width is at most this fraction of the median ratio (default 0.1). */
  tolerance?: number
  /** Stop after this much wall time, once `minPairs` ran (default 60 s). */
  budgetMs?: number
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

/** Every trial's measurement, pair by pair: `ours[i]` and `peer[i]` ran as pair i. */
export interface Trials<T> {
  ours: T[]
  peer: T[]
}

export function median(values: readonly number[]): number {
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
export function medianCi(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  const half = 0.98 * Math.sqrt(n)
  const lo = Math.max(0, Math.floor(n / 2 - half))
  const hi = Math.min(n - 1, Math.ceil(n / 2 + half) - 1)
  return [sorted[lo], sorted[hi]]
}

/** The comparison of one measure (`value`) of paired trials. */
export function compareBy<T>(trials: Trials<T>, value: (trial: T) => number): Comparison {
  const a = trials.ours.map(value)
  const b = trials.peer.map(value)
  const ratios = a.map((x, i) => x / b[i])
  return { ours: median(a), peer: median(b), ratio: median(ratios), ci: medianCi(ratios), pairs: ratios.length }
}

/**
 * Runs two trials in ABBA pairs after one discarded warm-up pair, until the median ratio of
 * their `value` is stable or the budget is spent.
 */
export async function pairTrials<T>(
  ours: () => Promise<T>,
  peer: () => Promise<T>,
  value: (trial: T) => number,
  options: PairOptions = {},
): Promise<Trials<T>> {
  const { minPairs = 6, maxPairs = 20, tolerance = 0.1, budgetMs = 60_000 } = options
  await ours()
  await peer()
  const started = performance.now()
  const trials: Trials<T> = { ours: [], peer: [] }
  const ratios: number[] = []
  while (ratios.length < maxPairs) {
    const oursFirst = ratios.length % 2 === 0
    const first = await (oursFirst ? ours : peer)()
    const second = await (oursFirst ? peer : ours)()
    const [x, y] = oursFirst ? [first, second] : [second, first]
    trials.ours.push(x)
    trials.peer.push(y)
    ratios.push(value(x) / value(y))
    if (ratios.length < minPairs) continue
    const [lo, hi] = medianCi(ratios)
    if (hi - lo <= tolerance * median(ratios) || performance.now() - started > budgetMs) break
  }
  return trials
}

/** Compares two trials that each measure one number (ms), in ABBA pairs. */
export async function comparePairs(ours: Trial, peer: Trial, options: PairOptions = {}): Promise<Comparison> {
  const same = (x: number) => x
  return compareBy(await pairTrials(ours, peer, same, options), same)
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
