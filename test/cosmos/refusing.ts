/**
 * A container whose server refuses some items for themselves, as Cosmos DB refuses an item it
 * cannot take (400): every create, upsert or replace of a body `refuse` picks, alone or in a bulk
 * request, is answered as the SDK reports such an answer, without reaching the server. The in-process server refuses little
 * of what an account does (sizes, most bad bodies); this stands in for it where a test needs
 * refusals at will.
 */
import type { Container, OperationInput, OperationResponse } from '@azure/cosmos'

const refusal = () => Object.assign(new Error('Message: {"Errors":["One of the specified inputs is invalid"]}'), { code: 400 })

/** Wraps `target` so that `wrap(name, method)` replaces its methods. */
function wrapped<T extends object>(target: T, wrap: (name: string | symbol, method: (...args: unknown[]) => unknown) => unknown): T {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name) as unknown
      return typeof value === 'function' ? wrap(name, value.bind(object) as (...args: unknown[]) => unknown) : value
    },
  })
}

export function refusing(container: Container, refuse: (body: Record<string, unknown>) => boolean): Container {
  const refused = (operation: OperationInput) => 'resourceBody' in operation && refuse(operation.resourceBody as Record<string, unknown>)
  /** The operations refused answered here, the others by the server, in their order. */
  const bulk = async (operations: OperationInput[], ...rest: unknown[]): Promise<OperationResponse[]> => {
    const others = operations.filter((operation) => !refused(operation))
    const passed = others.length === 0 ? [] : await container.items.bulk(others, ...(rest as []))
    return operations.map((operation) => (refused(operation) ? { statusCode: 400, requestCharge: 0 } : passed.shift()!))
  }
  const guard = (name: string | symbol, method: (...args: unknown[]) => unknown) => {
    if (name === 'bulk') return bulk
    return ['create', 'upsert', 'replace'].includes(name as string)
      ? (body: Record<string, unknown>, ...rest: unknown[]) => (refuse(body) ? Promise.reject(refusal()) : method(body, ...rest))
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
