export * from './assembly/api.js'
export { openTtlDB } from './assembly/open-page.js'
