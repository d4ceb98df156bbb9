/** Scenario 7: changing a store's default takes constant time, whatever the store holds. */
import { DEFAULT_TTL, dataset } from '../data.js'
import { atMost, comparePairs, medianTime, ratioRow, type Row } from '../harness.js'
import { STORE, withOurs, type Ours } from '../ours.js'

/** Ten changes of default, back and forth, none of which kills a live item. */
const changes = (db: Ours) => medianTime(10, (i) => db.setDefaultTtl(STORE, i % 2 ? DEFAULT_TTL : DEFAULT_TTL * 2), () => true)

export async function setDefaultTtl(): Promise<Row[]> {
  const big = dataset(100_000, 0)
  const small = dataset(1000, 0)
  const c = await comparePairs(
    () => withOurs(big, changes),
    () => withOurs(small, changes),
    { minPairs: 3, maxPairs: 5, tolerance: 0.3 },
  )
  return [ratioRow('set-default-ttl', 'same on a 1k-item store', 'ms', c, atMost(2, 'the 1k store'))]
}
