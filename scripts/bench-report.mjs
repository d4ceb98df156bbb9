// The benchmark table (markdown), the machine it ran on, and the files a run leaves behind.
import { writeFileSync } from 'node:fs'

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

/** One markdown row per results row. */
export function markdownTable(rows) {
  const lines = [
    '| scenario | peer | ours | peer | unit | ratio ours/peer (95% CI) | pairs | target | pass |',
    '|---|---|--:|--:|---|--:|--:|---|:-:|',
  ]
  for (const row of rows) {
    const cells = [row.id, row.peerName, number(row.ours), number(row.peer), row.unit, ratio(row), row.pairs ?? '—', row.target, row.pass ? '✅' : '❌']
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

/** A one-paragraph description of the machine and software a run used. */
export function machineLine(env) {
  return [
    `${env.date}`,
    `${env.cpu} × ${env.cores} cores, ${env.memoryGB} GB RAM, ${env.os}`,
    `load average ${env.loadAverage.map((l) => l.toFixed(2)).join(' → ')} (start → end)`,
    `Node ${env.node}`,
    env.browser ? `${env.browser} (headless, ${env.storage})` : undefined,
    env.crossOriginIsolated === undefined ? undefined : `timer: crossOriginIsolated=${env.crossOriginIsolated}`,
  ]
    .filter(Boolean)
    .join('; ')
}

/** Writes `results.json` and `RESULTS.md` into `dir`. */
export function writeResults(dir, environment, rows, method) {
  writeFileSync(`${dir}/results.json`, JSON.stringify({ environment, scenarios: rows }, null, 2) + '\n')
  const markdown = [
    '# Benchmark results',
    '',
    `Machine: ${machineLine(environment)}.`,
    '',
    method,
    '',
    markdownTable(rows),
    '',
  ].join('\n')
  writeFileSync(`${dir}/RESULTS.md`, markdown)
}
