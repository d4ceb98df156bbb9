export interface Run {
  code: number
  stdout: string
  stderr: string
}
export interface Packed {
  tarball: string
  files: string[]
}
export interface TscError {
  file: string
  line: number
  code: string
  message: string
}
export declare function run(file: string, args: string[], cwd: string): Promise<Run>
export declare function scratchDir(): Promise<string>
export declare function remove(dir: string): Promise<void>
export declare function pack(dir: string): Promise<Packed>
export declare function scratchApp(base: string, tarball: string): Promise<string>
export declare function installed(app: string): Promise<{ dir: string; copied: boolean }>
export declare function readText(dir: string, file: string): Promise<string>
export declare function exists(dir: string, file: string): boolean
export declare function addReadmeExample(app: string): Promise<void>
export declare function tsc(app: string, project: string): Promise<Run>
export declare function tscErrors(output: string): TscError[]
export declare function viteBuild(app: string): Promise<string>
