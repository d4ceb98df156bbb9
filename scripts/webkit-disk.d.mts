export declare const WEBKIT_DISK_ARGS: string[]

/** The environment that puts all of MiniBrowser's files under `dir`. */
export declare function dataEnv(dir: string): Record<string, string>

/** The folder under `dir` that holds one folder per origin, each with one folder per database. */
export declare function indexedDBRoot(dir: string): string

/** Every IndexedDB.sqlite3 under `dir`, relative to indexedDBRoot(dir): `<origin>/<hash>/IndexedDB.sqlite3`. */
export declare function indexedDBFiles(dir: string): string[]

export interface WebKitOnDisk {
  readonly pid: number | undefined
  /** Resolves when xvfb-run exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The last 8,000 characters of the processes' output (the page's console among them). */
  output(): string
  /** Ends every process of the group and waits until none is left (SIGTERM, then SIGKILL after graceMs). */
  stop(options?: { graceMs?: number }): Promise<void>
}

export declare function startWebKitOnDisk(options: { dir: string; url: string; args?: string[] }): WebKitOnDisk
