/**
 * The two names idb-keyval's suite takes from `conditional-type-checks` (not installed here):
 * `assert<T>(value)` compiles only when `T` is the literal type of `value`, and `IsExact<T, U>` is
 * `true` when the two types are the same (mutually assignable, `any` only to `any`).
 */
export function assert<T extends true | false>(expectTrue: T): void {
  void expectTrue
}

export type IsExact<T, U> = (<G>() => G extends T ? 1 : 2) extends <G>() => G extends U ? 1 : 2 ? true : false
