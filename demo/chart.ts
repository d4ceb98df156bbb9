/** Section 4, right: live vs on-disk item counts over the last two minutes, drawn as SVG. */
import { fmt, h, setText, svg } from './dom.js'

const WINDOW_MS = 120_000
const DRAW_EVERY_MS = 400
const SAMPLE_MS = 250
const W = 600
const H = 180
const PAD = { left: 48, right: 8, top: 10, bottom: 22 }

interface Sample { t: number; live: number; disk: number }

function niceMax(n: number): number {
  if (n <= 5) return 5
  const step = 10 ** Math.floor(Math.log10(n))
  return Math.ceil(n / step) * step
}

export class CountChart {
  readonly el: HTMLElement
  private readonly samples: Sample[] = []
  private readonly livePath = svg('polyline', { class: 'line live' })
  private readonly diskPath = svg('polyline', { class: 'line disk' })
  private readonly maxLabel = svg('text', { x: PAD.left - 6, y: PAD.top + 4, class: 'axis', 'text-anchor': 'end' })
  private readonly liveValue = h('b', { 'data-testid': 'chart-live' }, '0')
  private readonly diskValue = h('b', { 'data-testid': 'chart-disk' }, '0')

  constructor() {
    const plotBottom = H - PAD.bottom
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': 'live and on-disk item counts over time', 'data-testid': 'chart' },
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: PAD.top, y2: PAD.top, class: 'grid' }),
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: (PAD.top + plotBottom) / 2, y2: (PAD.top + plotBottom) / 2, class: 'grid' }),
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: plotBottom, y2: plotBottom, class: 'axis-line' }),
      this.maxLabel,
      svg('text', { x: PAD.left - 6, y: plotBottom + 4, class: 'axis', 'text-anchor': 'end' }, '0'),
      svg('text', { x: PAD.left, y: H - 4, class: 'axis' }, '−2 min'),
      svg('text', { x: W - PAD.right, y: H - 4, class: 'axis', 'text-anchor': 'end' }, 'now'),
      this.diskPath,
      this.livePath)
    this.el = h('div', { class: 'chart-box' },
      h('div', { class: 'legend' },
        h('span', { class: 'key live' }, 'live (reads) ', this.liveValue),
        h('span', { class: 'key disk' }, 'on disk ', this.diskValue)),
      chart)
  }

  private drawn = 0

  push(live: number, disk: number, now = Date.now()): void {
    const last = this.samples.at(-1)
    // Refreshes come in bursts while purging; one point per SAMPLE_MS keeps the line light.
    if (last && now - last.t < SAMPLE_MS && this.samples.length > 1) Object.assign(last, { live, disk })
    else this.samples.push({ t: now, live, disk })
    while (this.samples.length > 2 && this.samples[0].t < now - WINDOW_MS) this.samples.shift()
    setText(this.liveValue, fmt.format(live))
    setText(this.diskValue, fmt.format(disk))
    if (now - this.drawn < DRAW_EVERY_MS) return
    this.drawn = now
    const max = niceMax(Math.max(...this.samples.map((s) => Math.max(s.live, s.disk))))
    setText(this.maxLabel, fmt.format(max))
    const x = (t: number) => PAD.left + ((t - (now - WINDOW_MS)) / WINDOW_MS) * (W - PAD.left - PAD.right)
    const y = (v: number) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom)
    const points = (pick: (s: Sample) => number) => this.samples.map((s) => `${x(s.t).toFixed(1)},${y(pick(s)).toFixed(1)}`).join(' ')
    this.livePath.setAttribute('points', points((s) => s.live))
    this.diskPath.setAttribute('points', points((s) => s.disk))
  }
}
