import { execFile } from 'node:child_process'

/**
 * Runs `script` (an ES module's source) in a fresh `node` from `cwd`, where test/setup-node.ts's
 * fake-indexeddb is not installed; resolves to the last line it printed, parsed as JSON. The
 * timeout also checks that nothing the script started keeps the process alive.
 */
export function runNodeScript(script: string, cwd: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`))
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''))
    })
  })
}
