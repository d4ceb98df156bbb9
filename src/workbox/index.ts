export { TtlExpirationPlugin } from './plugin.js'
export type {
  CacheDidUpdateParams,
  CacheKeyWillBeUsedParams,
  CachedResponseWillBeUsedParams,
  HandlerDidCompleteParams,
  PluginState,
  ResponseContext,
  StrategyEvent,
  TtlExpirationPluginOptions,
} from './types.js'
