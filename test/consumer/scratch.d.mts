export interface Run {
  code: number
  stdout: string
  stderr: string
}
export interface Packed {
  tarball: string
  files: string[]
  unpackedSize: number
}
export interface TscError {
  file: string
  line: number
  code: string
  message: string
}
export declare function run(file: string, args: string[], cwd: string): Promise<Run>
/** A command-line tool of the repo's dev dependencies (`attw`, `publint`), run on `args` from the repo. */
export declare function devTool(name: string, args: string[]): Promise<Run>
export declare function scratchDir(): Promise<string>
export declare function remove(dir: string): Promise<void>
export declare function pack(dir: string): Promise<Packed>
export declare function scratchApp(base: string, tarball: string): Promise<string>
export declare function installed(app: string): Promise<{ dir: string; copied: boolean }>
export declare function readText(dir: string, file: string): Promise<string>
/** The markdown files under the repo's docs/, as `docs/<name>.md`, the generated API reference aside. */
export declare function docsFiles(): Promise<string[]>
/** The pages of docs/ the package leaves out (about working on the repository), as `docs/<name>.md`. */
export declare function repositoryOnlyDocs(): string[]
export declare function exists(dir: string, file: string): boolean
export interface MarkdownBlock {
  /** Line of the opening fence, 1-based. */
  line: number
  code: string
  /** Why the block is not type-checked, when a marker before it says so. */
  skipped: string | undefined
}
export interface DocBlock {
  /** The markdown file, relative to the repo: README.md, docs/… */
  source: string
  /** Line of the opening fence in `source`, 1-based. */
  line: number
  /** The block's module in the app, relative to the app. */
  file: string
  skipped: string | undefined
}
export declare function tsBlocks(markdown: string): MarkdownBlock[]
export declare function addDocBlocks(app: string): Promise<DocBlock[]>
export declare function tsc(app: string, project: string): Promise<Run>
/** The app that uses only `idb-ttl/core` (core.ts), bundled and minified by esbuild: its text, gzipped bytes and the files bundled. */
export declare function esbuildCoreApp(app: string): Promise<{ code: string; gzipped: number; inputs: string[] }>
export declare function tscErrors(output: string): TscError[]
export declare function viteBuild(app: string): Promise<string>
export interface Bundle {
  /** The output directory, with an index.html that loads the bundle. */
  dir: string
  warnings: string[]
}
export declare function esbuildBuild(app: string): Promise<Bundle>
export declare function copyWorker(app: string, dir: string): Promise<void>
export declare function webpackBuild(app: string): Promise<Bundle & { files: string[] }>
export declare function exportsOf(file: string): Promise<string[]>
export declare function vitePwaBuild(app: string, filename?: string, rollupFormat?: 'es' | 'iife'): Promise<string>
export declare function esbuildServiceWorker(app: string, entry?: string): Promise<Bundle>
export declare function runCosmosNode(app: string, endpoint: string): Promise<Run>
/** The budget of an app of `idb-ttl/core`, in bytes min+gzip: .size-limit.js's limit for `idb-ttl/core`. */
export declare const CORE_APP_BUDGET: number
export interface WeighedChunk {
  file: string
  code: string
  gzipped: number
}
export declare function viteFirstLoad(app: string, entry: string): Promise<{ bytes: number; firstLoad: WeighedChunk[]; later: WeighedChunk[] }>
export declare const FIRST_LOAD_BUDGET: { core: number; full: number }
