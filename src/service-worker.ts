export * from './assembly/api.js'
export { openTtlDB } from './assembly/open-inline.js'
