/** Props a test changes after mounting, as a parent component's state would (a `$state` proxy). */
export function reactiveProps<P extends Record<string, unknown>>(initial: P): P {
  const props = $state(initial)
  return props
}
