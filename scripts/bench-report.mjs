// The benchmark tables (markdown), the machine it ran on, and the files a run leaves behind.
// `node scripts/bench-report.mjs` prints the results block of docs/benchmarks.md from
// bench/results.json; with `--write` it replaces that block in docs/benchmarks.md (the lines
// between its `<!-- bench-report:start -->` and `<!-- bench-report:end -->` markers).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ENGINES = ['chromium', 'firefox', 'webkit', 'webkit-disk']

/** Three significant digits, whole numbers for counts and bytes. */
function number(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US')
  return value.toPrecision(3)
}

function ratio(row) {
  if (row.ratio === null) return '—'
  const ci = row.ci ? ` (${row.ci.map((r) => r.toFixed(2)).join('–')})` : ''
  return `${row.ratio.toFixed(2)}${ci}`
}

const mark = (row) => (row.pass ? '✅' : '❌')

/** One markdown row per results row; an engine column when the rows name engines. */
export function markdownTable(rows) {
  const engines = rows.some((row) => row.engine)
  const lines = [
    `| scenario |${engines ? ' engine |' : ''} peer | ours | peer | unit | ratio ours/peer (95% CI) | pairs | target | pass |`,
    `|---|${engines ? '---|' : ''}---|--:|--:|---|--:|--:|---|:-:|`,
  ]
  for (const row of rows) {
    const cells = [row.id, ...(engines ? [row.engine ?? '—'] : []), row.peerName, number(row.ours), number(row.peer), row.unit, ratio(row), row.pairs ?? '—', row.target, mark(row)]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

/** The rows of each (scenario, peer, unit), by engine, in the order they first appear. */
function byComparison(rows) {
  const groups = new Map()
  for (const row of rows) {
    const key = `${row.id}\u0000${row.peerName}\u0000${row.unit}`
    if (!groups.has(key)) groups.set(key, {})
    groups.get(key)[row.engine] = row
  }
  return [...groups.values()]
}

/** An engine's cell: the ratio (CI) and its pass mark, or the count where there is no ratio. */
function engineCell(row) {
  if (!row) return ''
  if (row.ours === null) return '— (not measurable)'
  return `${row.ratio === null ? number(row.ours) : ratio(row)} ${mark(row)}`
}

/**
 * One line per (scenario, peer, unit), a column per engine with the ratio ours/peer (95% CI) and
 * its pass mark; the target is the first engine's. `multiEngineOnly` keeps the lines measured in
 * more than one engine. Rows with no engine (sizes) are left out.
 */
export function engineTable(rows, { multiEngineOnly = false } = {}) {
  const groups = byComparison(rows.filter((row) => row.engine)).filter((g) => !multiEngineOnly || Object.keys(g).length > 1)
  const lines = [
    `| scenario | peer | unit | ${ENGINES.map((e) => `${e} ratio (95% CI)`).join(' | ')} | target |`,
    `|---|---|---|${ENGINES.map(() => '--:').join('|')}|---|`,
  ]
  for (const group of groups) {
    const first = group[ENGINES.find((e) => group[e])]
    lines.push(`| ${[first.id, first.peerName, first.unit, ...ENGINES.map((e) => engineCell(group[e])), first.target].join(' | ')} |`)
  }
  return lines.join('\n')
}

/** A one-paragraph description of the machine and software a run used. */
export function machineLine(env) {
  const engines = Object.entries(env.engines ?? {}).map(
    ([name, e]) => `${name}: ${e.version} (headless, ${e.storage}; crossOriginIsolated=${e.crossOriginIsolated})`,
  )
  return [
    `${env.date}`,
    `${env.cpu} × ${env.cores} cores, ${env.memoryGB} GB RAM, ${env.os}`,
    `load average ${env.loadAverage.map((l) => l.toFixed(2)).join(' → ')} (start → end)`,
    `Node ${env.node}`,
    ...engines,
    ...(env.merged ?? []).map((m) => `rows of ${m.ids.join(', ')} (${m.engines.join(', ')}) re-run ${m.date}, load average ${m.loadAverage.map((l) => l.toFixed(2)).join(' → ')}`),
  ].join('; ')
}

/** The markers around the results block in docs/benchmarks.md. */
const START = '<!-- bench-report:start -->'
const END = '<!-- bench-report:end -->'

/**
 * The results block of docs/benchmarks.md: the machine, the method, a line per comparison with a
 * column per engine, then the rows measured outside any browser.
 */
export function resultsSection(environment, rows, method) {
  const outside = rows.filter((row) => !row.engine)
  return [
    `Latest run. Machine: ${machineLine(environment)}.`,
    '',
    method,
    '',
    engineTable(rows),
    ...(outside.length ? ['', markdownTable(outside)] : []),
    '',
  ].join('\n')
}

/** Writes `results.json` and `RESULTS.md` into `dir`. */
export function writeResults(dir, environment, rows, method) {
  writeFileSync(`${dir}/results.json`, JSON.stringify({ environment, method, scenarios: rows }, null, 2) + '\n')
  const markdown = [
    '# Benchmark results',
    '',
    `Machine: ${machineLine(environment)}.`,
    '',
    method,
    '',
    'In every engine that runs them (ratio ours/peer, 95% CI):',
    '',
    engineTable(rows, { multiEngineOnly: true }),
    '',
    'Every row:',
    '',
    markdownTable(rows),
    '',
  ].join('\n')
  writeFileSync(`${dir}/RESULTS.md`, markdown)
}

/** `page` with the text between its markers replaced by `section`. */
export function replaceSection(page, section) {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${START} … ${END} block`)
  return `${page.slice(0, start + START.length)}\n${section}\n${page.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { environment, method, scenarios } = JSON.parse(readFileSync(new URL('../bench/results.json', import.meta.url), 'utf8'))
  const section = resultsSection(environment, scenarios, method ?? '')
  if (process.argv.includes('--write')) {
    const page = new URL('../docs/benchmarks.md', import.meta.url)
    writeFileSync(page, replaceSection(readFileSync(page, 'utf8'), section))
  } else {
    process.stdout.write(section)
  }
}
