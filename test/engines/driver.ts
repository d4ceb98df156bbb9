export type { EngineWindow } from '../../scripts/engine-window.mjs'

export type Engine = 'firefox' | 'webkit'
