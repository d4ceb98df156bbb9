/**
 * Section 5: the rules playground. Every verdict and every matrix cell comes from the library's
 * own resolver (src/ttl.ts through the public entry), never from a copy of the rules.
 */
import { checkDefaultTtl, effectiveTtl, isValidTtl, itemTtl, TtlError, type TtlValues } from '../src/index.js'
import { h, setText } from './dom.js'
import { parseTtlInput, showValue } from './ttl-input.js'

type Col = 'absent' | 'minus1' | 'n'
type Row = 'absent' | 'minus1' | 'm'

interface Verdict {
  kind: 'never' | 'expires' | 'ignored' | 'rejected'
  text: string
  detail: string
  cell?: { row: Row; col: Col }
}

const COLS: [Col, string][] = [['absent', 'absent / null'], ['minus1', '-1'], ['n', 'n']]
const ROWS: [Row, string][] = [['absent', 'absent'], ['minus1', '-1'], ['m', 'm']]
const INVALID_PRESETS = ['0', '-1000', '20.5', '"10"', '-2', '2147483648', 'NaN', '10n', 'true']

function errorMessage(error: unknown): string {
  if (error instanceof TtlError) return `${error.name} ${error.code}: ${error.message}`
  throw error
}

/** The resolver's answer for one store default and one item ttl in one mode. */
export function verdict(defaultValue: unknown, ttlValue: unknown, mode: TtlValues): Verdict {
  let d: number | null
  try {
    d = checkDefaultTtl(defaultValue)
  } catch (error) {
    return { kind: 'rejected', text: 'rejected: invalid defaultTtl', detail: errorMessage(error) }
  }
  let t: ReturnType<typeof itemTtl>
  try {
    t = itemTtl(ttlValue, mode)
  } catch (error) {
    return { kind: 'rejected', text: 'rejected: nothing is written', detail: errorMessage(error) }
  }
  const cell = {
    row: t.kind === 'inherit' ? 'absent' : t.kind === 'never' ? 'minus1' : 'm',
    col: d === null ? 'absent' : d === -1 ? 'minus1' : 'n',
  } satisfies Verdict['cell']
  const kept =
    ttlValue !== undefined && ttlValue !== null && !isValidTtl(ttlValue) && t.kind === 'inherit'
      ? `The invalid ttl ${showValue(ttlValue)} is stored as given but means nothing: the item inherits the store default. `
      : ''
  const seconds = effectiveTtl(t, d)
  if (seconds === null) {
    if (d === null && t.kind !== 'inherit') {
      return { kind: 'ignored', text: 'never expires: TTL ignored', detail: `${kept}TTL is off for the store, so the item's own ttl has no effect.`, cell }
    }
    const why = d === null ? 'TTL is off for the store.' : t.kind === 'never' ? 'Its own ttl is -1.' : 'The store default is -1 and the item has no ttl of its own.'
    return { kind: 'never', text: 'never expires', detail: kept + why, cell }
  }
  const source = t.kind === 'seconds' ? 'its own ttl' : 'the store default'
  return {
    kind: 'expires',
    text: `expires after ${seconds} s`,
    detail: `${kept}By ${source}: gone from reads once now ≥ _ts + ${seconds}. _ts is whole seconds, so it lives ${seconds - 1}–${seconds} s after its last write.`,
    cell,
  }
}

/** The n and m of the inputs when the page opens; the table is worked out with the inputs' values. */
const START_N = 30
const START_M = 10

/**
 * A matrix cell in the README's words, worked out by the resolver with the store default `n` and
 * the item ttl `m` (valid ttls). Which of the two it took is told by the item's ttl: where the
 * resolver returns the item's own seconds, that is m, even when n happens to be equal.
 */
export function cellText(row: Row, col: Col, n: number, m: number): string {
  const ttl = itemTtl(row === 'absent' ? undefined : row === 'minus1' ? -1 : m)
  const seconds = effectiveTtl(ttl, checkDefaultTtl(col === 'absent' ? undefined : col === 'minus1' ? -1 : n))
  if (seconds === null) return col === 'absent' && row !== 'absent' ? 'never expires (ttl ignored)' : 'never expires'
  return ttl.kind === 'seconds' && seconds === m ? 'expires after m' : 'expires after n'
}

function radio(name: string, value: string, label: string, checked: boolean, extra?: Node): HTMLLabelElement {
  return h(
    'label',
    { class: 'choice' },
    h('input', { type: 'radio', name, value, checked, 'data-testid': `${name}-${value}` }),
    label,
    extra ?? null,
  )
}

export function mountPlayground(root: HTMLElement): void {
  const nInput = h('input', { type: 'number', value: String(START_N), min: '1', step: '1', class: 'num', 'data-testid': 'pg-n', 'aria-label': 'store default n' })
  const mInput = h('input', { type: 'number', value: String(START_M), min: '1', step: '1', class: 'num', 'data-testid': 'pg-m', 'aria-label': 'item ttl m' })
  const otherInput = h('input', { type: 'text', value: '20.5', class: 'text', 'data-testid': 'pg-other', 'aria-label': 'any item ttl value', spellcheck: 'false' })

  const defaults = h('fieldset', { class: 'choices' }, h('legend', {}, 'Store defaultTtl'),
    radio('pg-default', 'absent', 'absent', false),
    radio('pg-default', 'minus1', '-1', false),
    radio('pg-default', 'n', 'n = ', true, nInput))
  const presets = h('div', { class: 'presets' }, ...INVALID_PRESETS.map((p) =>
    h('button', { type: 'button', class: 'chip', onclick: () => { otherInput.value = p; pick('pg-ttl', 'other') } }, p)))
  const ttls = h('fieldset', { class: 'choices' }, h('legend', {}, 'Item ttl'),
    radio('pg-ttl', 'absent', 'absent', false),
    radio('pg-ttl', 'minus1', '-1', false),
    radio('pg-ttl', 'm', 'm = ', true, mInput),
    radio('pg-ttl', 'other', 'any value: ', false, otherInput),
    presets)

  const cards = (['strict', 'lenient'] as const).map((mode) => {
    const text = h('div', { class: 'verdict-text', 'data-testid': `verdict-${mode}` })
    const detail = h('div', { class: 'verdict-detail', 'data-testid': `verdict-${mode}-detail` })
    const card = h('div', { class: 'verdict' }, h('div', { class: 'verdict-mode' }, `${mode} mode`), text, detail)
    return { mode, card, text, detail }
  })
  const call = h('code', { class: 'call', 'data-testid': 'pg-call' })

  const cells = new Map<string, HTMLTableCellElement>()
  const table = h('table', { class: 'matrix', 'data-testid': 'matrix' },
    h('thead', {}, h('tr', {}, h('th', { class: 'corner' }, h('span', {}, 'default →'), h('span', {}, 'item ttl ↓')), ...COLS.map(([, label]) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, ...ROWS.map(([row, label]) => h('tr', {}, h('th', { scope: 'row' }, label), ...COLS.map(([col]) => {
      const td = h('td', { 'data-testid': `matrix-${row}-${col}` }, cellText(row, col, START_N, START_M))
      cells.set(`${row}/${col}`, td)
      return td
    })))))

  function pick(name: string, value: string): void {
    const input = root.querySelector<HTMLInputElement>(`input[name="${name}"][value="${value}"]`)
    if (input) input.checked = true
    update()
  }

  function chosen(name: string): string {
    return root.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value ?? 'absent'
  }

  // The table's n and m: the inputs' values while they are valid ttls, else the last valid ones.
  let sample = { n: START_N, m: START_M }
  const caption = h('p', { class: 'hint', 'data-testid': 'matrix-caption' })

  function update(): void {
    const d = chosen('pg-default')
    const defaultValue = d === 'absent' ? undefined : d === 'minus1' ? -1 : parseTtlInput(nInput.value)
    const t = chosen('pg-ttl')
    const ttlValue = t === 'absent' ? undefined : t === 'minus1' ? -1 : t === 'm' ? parseTtlInput(mInput.value) : parseTtlInput(otherInput.value)
    const n = parseTtlInput(nInput.value)
    const m = parseTtlInput(mInput.value)
    const usable = (v: unknown): v is number => typeof v === 'number' && isValidTtl(v) && v !== -1
    sample = { n: usable(n) ? n : sample.n, m: usable(m) ? m : sample.m }
    for (const [id, td] of cells) {
      const [row, col] = id.split('/') as [Row, Col]
      setText(td, cellText(row, col, sample.n, sample.m))
    }
    const which = usable(n) && usable(m) ? 'the values in the inputs' : 'the last valid values of the inputs'
    setText(caption, `The table is the resolver's answer for each pair, with n = ${sample.n} and m = ${sample.m} (${which}); the lit cell is your choice.`)
    setText(call, `stores: { s: { defaultTtl: ${showValue(defaultValue)} } }   put('s', { id, ttl: ${showValue(ttlValue)} })`)
    const verdicts = cards.map(({ mode, card, text, detail }) => {
      const v = verdict(defaultValue, ttlValue, mode)
      card.dataset.kind = v.kind
      setText(text, v.text)
      setText(detail, v.detail)
      return v
    })
    // Strict mode decides the lit cell; when it rejects, lenient mode's reading is lit, hatched.
    const lit = verdicts[0].cell ?? verdicts[1].cell
    for (const [id, td] of cells) {
      const on = lit !== undefined && id === `${lit.row}/${lit.col}`
      td.classList.toggle('lit', on)
      td.classList.toggle('lenient-only', on && !verdicts[0].cell)
      if (on) td.setAttribute('aria-current', 'true')
      else td.removeAttribute('aria-current')
    }
  }

  root.addEventListener('input', update)
  root.addEventListener('change', update)
  nInput.addEventListener('focus', () => pick('pg-default', 'n'))
  mInput.addEventListener('focus', () => pick('pg-ttl', 'm'))
  otherInput.addEventListener('focus', () => pick('pg-ttl', 'other'))

  root.append(
    h('div', { class: 'playground' },
      h('div', { class: 'pg-controls' }, defaults, ttls),
      h('div', { class: 'pg-result' }, call, h('div', { class: 'verdicts' }, ...cards.map((c) => c.card)), table, caption)),
  )
  update()
}
