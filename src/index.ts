export * from './api.js'
export { openTtlDB } from './open-page.js'
