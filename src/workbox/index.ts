export { TtlExpirationPlugin } from './plugin.js'
export type {
  CacheDidUpdateParams,
  CacheKeyWillBeUsedParams,
  CachedResponseWillBeUsedParams,
  FetchDidFailParams,
  HandlerDidCompleteParams,
  HandlerDidErrorParams,
  PluginState,
  ResponseContext,
  StrategyEvent,
  TtlExpirationPluginOptions,
} from './types.js'
