const m = await import('/work/main/scripts/_sf.mjs')
const { appBytes } = m
const parts = {
  pageside: { exports: { 'src/background/background.ts': ['Background'], 'src/background/worker/client.ts': ['WorkerPurger', 'WATCHDOG_MS'] }, members: {} },
  schema: { exports: { 'src/layout/schema.ts': ['checkStoreConfigs','addedUniqueIndexes','upgradeSchema','checkSchema','applyDeclaredDefaults','explainAbort'] }, members: {} },
  quota: { exports: { 'src/purge/quota.ts': ['withQuotaRelief'] }, members: {} },
  heldsettings: { exports: { 'src/layout/held-settings.ts': ['heldSettings','settingsTicket','settingsRead','forgetSettings','holdSettings','changingSettings'] }, members: {} },
}
const base = await appBytes('src/core.ts')
console.log('core app', base)
for (const [k, f] of Object.entries(parts)) { try { console.log(k, base - await appBytes('src/core.ts', [f])) } catch (e) { console.log(k, 'ERR', e.message) } }
