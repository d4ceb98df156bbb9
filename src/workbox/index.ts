export { TtlExpirationPlugin } from './plugin.js'
export type {
  CacheDidUpdateParams,
  CachedResponseWillBeUsedParams,
  HandlerDidCompleteParams,
  ResponseContext,
  StrategyEvent,
  TtlExpirationPluginOptions,
} from './types.js'
