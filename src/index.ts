export * from './assembly/api.js'
export { deleteTtlDB, openTtlDB } from './assembly/open-page.js'
