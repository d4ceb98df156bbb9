/**
 * Smoothness made visible: frame times measured with requestAnimationFrame and long tasks
 * (> 50 ms on the main thread) reported by the browser's PerformanceObserver. It counts from
 * `start()`, called once the page has loaded: the page's own start-up (modules, the database
 * opening, the second frame loading a copy of the demo) is not what it is there to show.
 */
import { fmt, h, setText } from './dom.js'

const FRAMES_KEPT = 300
const LONG_TASK_WINDOW_MS = 10_000

export interface FrameMeter {
  /** Starts counting frames and long tasks; until then the meter says it is waiting. */
  start(): void
}

export function mountFrameMeter(root: HTMLElement): FrameMeter {
  const fps = h('b', { 'data-testid': 'fps' }, '–')
  const worst = h('b', { 'data-testid': 'worst-frame' }, '–')
  const longTasks = h('b', { 'data-testid': 'long-tasks' }, '–')
  const caption = h('span', { class: 'meter-caption', 'data-testid': 'meter-caption' }, 'page smoothness, after load')
  const canvas = h('canvas', { width: 180, height: 36, class: 'spark', 'aria-hidden': 'true' })
  const meter = h('div', { class: 'meter', 'data-testid': 'frame-meter', 'data-state': 'waiting', title: 'frame times of the last ~5 s, counted from when the page had loaded; lines at 16.7 ms and 50 ms' },
    canvas,
    h('div', { class: 'meter-text' },
      caption,
      h('span', {}, fps, ' fps · worst frame (5 s) ', worst),
      h('span', {}, 'long tasks (10 s) ', longTasks)))
  root.append(meter)

  const frames: { t: number; dt: number }[] = []
  const tasks: { t: number; ms: number }[] = []
  const observesLongTasks = PerformanceObserver.supportedEntryTypes?.includes('longtask') ?? false
  let started = false

  function start(): void {
    if (started) return
    started = true
    meter.dataset.state = 'running'
    if (observesLongTasks) {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push({ t: performance.now(), ms: e.duration })
      }).observe({ type: 'longtask' })
    } else {
      setText(longTasks, 'n/a in this browser')
    }
    const ctx = canvas.getContext('2d')
    let last = performance.now()
    let lastText = 0
    const loop = (now: number) => {
      frames.push({ t: now, dt: now - last })
      last = now
      if (frames.length > FRAMES_KEPT) frames.shift()
      if (now - lastText > 250) {
        lastText = now
        const second = frames.filter((f) => f.t > now - 1000)
        setText(fps, String(second.length))
        const w = Math.max(...frames.filter((f) => f.t > now - 5000).map((f) => f.dt))
        setText(worst, `${w.toFixed(0)} ms`)
        worst.dataset.level = w > 50 ? 'bad' : w > 25 ? 'meh' : 'ok'
        while (tasks.length && tasks[0].t < now - LONG_TASK_WINDOW_MS) tasks.shift()
        if (observesLongTasks) {
          const longest = tasks.reduce((m, x) => Math.max(m, x.ms), 0)
          setText(longTasks, tasks.length ? `${fmt.format(tasks.length)}, longest ${longest.toFixed(0)} ms` : '0')
          longTasks.dataset.level = tasks.length ? 'bad' : 'ok'
        }
        if (ctx) draw(ctx, frames)
      }
      requestAnimationFrame(loop)
    }
    requestAnimationFrame(loop)
  }
  return { start }
}

function draw(ctx: CanvasRenderingContext2D, frames: { dt: number }[]): void {
  const { width, height } = ctx.canvas
  const scale = (ms: number) => height - Math.min(ms, 100) * (height / 100)
  ctx.clearRect(0, 0, width, height)
  const barW = width / FRAMES_KEPT
  frames.forEach((f, i) => {
    ctx.fillStyle = f.dt > 50 ? '#d9480f' : f.dt > 25 ? '#f59f00' : '#74b816'
    const y = scale(f.dt)
    ctx.fillRect(width - (frames.length - i) * barW, y, Math.max(1, barW), height - y)
  })
  ctx.fillStyle = 'rgba(0,0,0,0.35)'
  for (const ms of [16.7, 50]) ctx.fillRect(0, Math.round(scale(ms)), width, 1)
}
