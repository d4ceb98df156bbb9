/** Small DOM builders. Text always goes in as Text nodes: nothing a visitor types is parsed as HTML. */

type Child = Node | string | number | null | undefined | false
type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>

function apply(el: Element, props: Props | undefined): void {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(name.slice(2), value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    el.append(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** `h('p', { class: 'x', onclick: fn }, 'text', child)`: attributes, `on*` listeners, children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  apply(el, props)
  append(el, children)
  return el
}

const SVG = 'http://www.w3.org/2000/svg'

/** The SVG counterpart of {@link h}. */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag)
  apply(el, props)
  append(el, children)
  return el
}

/** Sets `textContent` only when it changes, so per-frame updates cost nothing when idle. */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text
}

export const fmt = new Intl.NumberFormat('en-US')

/** Seconds with one decimal below a minute, then m:ss. */
export function formatSeconds(ms: number): string {
  const s = Math.max(0, ms) / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const whole = Math.floor(s)
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')} min`
}

export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString('en-GB', { hour12: false })
}
