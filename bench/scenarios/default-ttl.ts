/** Scenario 7: changing a store's default takes constant time, whatever the store holds. */
import { DEFAULT_TTL, dataset } from '../data.js'
import { atMost, compareAll, medianTime, ratioRow, trial, type Row } from '../harness.js'
import { openOurs, STORE, type Ours } from '../ours.js'

/** Fifty changes of default, back and forth, none of which kills a live item. */
const changes = (db: Ours) => medianTime(50, (i) => db.setDefaultTtl(STORE, i % 2 ? DEFAULT_TTL : DEFAULT_TTL * 2), () => true)

export async function setDefaultTtl(): Promise<Row[]> {
  const big = trial(() => openOurs(dataset(100_000, 0)), changes)
  const small = trial(() => openOurs(dataset(1000, 0)), changes)
  const [c] = await compareAll(big, [small], { minPairs: 4, maxPairs: 4, warmup: false })
  return [ratioRow('set-default-ttl', 'same on a 1k-item store', 'ms', c, atMost(2, 'the 1k store'))]
}
