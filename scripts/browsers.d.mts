export declare const FIREFOX_PATH: string
export declare const WEBKIT_DRIVER_PATH: string
export declare const MINIBROWSER_PATH: string
export declare const XVFB_RUN_PATH: string
export declare const ENGINES: Record<'chromium' | 'firefox' | 'webkit', { files: string[]; packages: string[] }>
