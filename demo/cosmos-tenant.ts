/**
 * Section 7, the tenant the mirror follows: a selector of partition key values. Choosing one
 * stops the mirror's sync and starts another on the new value (`sync.stop()`, then
 * `syncCosmos(db, store, container, { partitionKey })`, then a pull): the mirror's first round
 * rescopes the store, so it shows only that tenant's items, and the writes still owed to the
 * last one wait on the device until it is chosen again (docs/cosmos.md). The choice is kept in
 * `localStorage`, so a reload mirrors the same tenant.
 */
import { h } from './dom.js'

/** The tenants offered: the dev server's own partition key value first. */
export function tenantsOf(first: string): string[] {
  return [first, ...['acme', 'globex'].filter((tenant) => tenant !== first)]
}

const KEY = 'idb-ttl-demo:cosmos-tenant'

/** The tenant chosen last on this origin, if it is one of `tenants`; else the first. */
export function savedTenant(tenants: string[]): string {
  const saved = localStorage.getItem(KEY)
  return saved !== null && tenants.includes(saved) ? saved : tenants[0]
}

/** A labelled `<select>` of `tenants`; `change` runs with each new choice, once the last one ended. */
export function tenantPicker(tenants: string[], current: string, change: (tenant: string) => Promise<void>): HTMLElement {
  const select = h('select', { 'data-testid': 'cosmos-tenant', 'aria-label': 'tenant (partition key)' },
    ...tenants.map((tenant) => h('option', { value: tenant, selected: tenant === current }, tenant)))
  select.addEventListener('change', () => {
    const tenant = select.value
    localStorage.setItem(KEY, tenant)
    select.disabled = true
    void change(tenant).finally(() => {
      select.disabled = false
      select.dataset.tenant = tenant
    })
  })
  select.dataset.tenant = current
  return h('label', { class: 'cosmos-tenant' }, 'Tenant ', select)
}
