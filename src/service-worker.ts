export * from './api.js'
export { openTtlDB } from './open-inline.js'
