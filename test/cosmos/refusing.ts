/**
 * A container whose server refuses some items for themselves, as Cosmos DB refuses an item it
 * cannot take (400), a unique-key clash (409) or a body over its size limit (413): every create, upsert or replace of a body `refuse` picks, alone or in a bulk
 * request, is answered as the SDK reports such an answer, without reaching the server. The in-process server refuses little
 * of what an account does (sizes, most bad bodies); this stands in for it where a test needs
 * refusals at will.
 */
import type { Container, OperationInput, OperationResponse } from '@azure/cosmos'

/** What the server answers, by status: an item it cannot take, a unique-key clash, a body over its size limit. */
const MESSAGES: Record<number, string> = {
  400: 'One of the specified inputs is invalid',
  409: 'Unique index constraint violation.',
  413: 'Request size is too large',
}
const refusal = (status: number) => Object.assign(new Error(`Message: {"Errors":["${MESSAGES[status] ?? 'Refused'}"]}`), { code: status })

/** Wraps `target` so that `wrap(name, method)` replaces its methods. */
function wrapped<T extends object>(target: T, wrap: (name: string | symbol, method: (...args: unknown[]) => unknown) => unknown): T {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name) as unknown
      return typeof value === 'function' ? wrap(name, value.bind(object) as (...args: unknown[]) => unknown) : value
    },
  })
}

/**
 * `refuse` picks the bodies the server refuses: `true` (400), or the status of its answer (400,
 * 409 or 413).
 */
export function refusing(container: Container, refuse: (body: Record<string, unknown>) => boolean | number): Container {
  const statusOf = (body: Record<string, unknown>) => {
    const answer = refuse(body)
    return answer === true ? 400 : answer === false ? undefined : answer
  }
  const refused = (operation: OperationInput) => ('resourceBody' in operation ? statusOf(operation.resourceBody as Record<string, unknown>) : undefined)
  /** The operations refused answered here, the others by the server, in their order. */
  const bulk = async (operations: OperationInput[], ...rest: unknown[]): Promise<OperationResponse[]> => {
    const others = operations.filter((operation) => refused(operation) === undefined)
    const passed = others.length === 0 ? [] : await container.items.bulk(others, ...(rest as []))
    return operations.map((operation) => {
      const status = refused(operation)
      return status !== undefined ? { statusCode: status, requestCharge: 0 } : passed.shift()!
    })
  }
  const guard = (name: string | symbol, method: (...args: unknown[]) => unknown) => {
    if (name === 'bulk') return bulk
    return ['create', 'upsert', 'replace'].includes(name as string)
      ? (body: Record<string, unknown>, ...rest: unknown[]) => {
          const status = statusOf(body)
          return status !== undefined ? Promise.reject(refusal(status)) : method(body, ...rest)
        }
      : method
  }
  const items = wrapped(container.items, guard)
  return new Proxy(container, {
    get(object, name) {
      if (name === 'items') return items
      if (name === 'item') return (id: string, pk: never) => wrapped(object.item(id, pk), guard)
      return Reflect.get(object, name) as unknown
    },
  })
}
