/**
 * A scratch app outside the repo that installs the packed tarball as a user would: `npm pack`
 * (which runs `prepack`), then `npm ci --offline` from a lockfile that pins the package's own
 * dependencies to the repo's lockfile entries, so npm takes them from the cache `npm ci` filled
 * (a bare `npm install --offline <tarball>` needs registry metadata that npm ci never fetches).
 * The app's tools, vite and typescript, are the repo's own. Plain JavaScript with a .d.mts
 * beside it, as scripts/chromium.mjs: the project type-checks without Node's types.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TEMPLATE = fileURLToPath(new URL('./app', import.meta.url))
const require = createRequire(import.meta.url)
const TSC = require.resolve('typescript/bin/tsc')
const VITE = path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js')
const MARKER = '<!-- type-checked by test/consumer -->'
const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'))

/** Runs a command to its end; a non-zero exit is returned, not thrown. */
export function run(file, args, cwd) {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

async function runOk(file, args, cwd) {
  const result = await run(file, args, cwd)
  if (result.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** A fresh temporary directory outside the repo, so nothing resolves from the repo's node_modules. */
export function scratchDir() {
  return mkdtemp(path.join(tmpdir(), 'idb-ttl-consumer-'))
}

export async function remove(dir) {
  await rm(dir, { recursive: true, force: true })
}

/** `npm pack` of the repo into `dir`: the tarball's path and the sorted list of its files. */
export async function pack(dir) {
  const stdout = await runOk('npm', ['pack', '--json', '--pack-destination', dir], ROOT)
  // prepack's own output may come first on stdout: the report is the JSON array at the end.
  const [report] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1))
  return { tarball: path.join(dir, report.filename), files: report.files.map((file) => file.path).sort() }
}

/** Creates the app from test/consumer/app in `base`/app and installs `tarball` into it. */
export async function scratchApp(base, tarball) {
  const app = path.join(base, 'app')
  await cp(TEMPLATE, app, { recursive: true })
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'))
  const spec = `file:${path.relative(app, tarball)}`
  const dependencies = { [manifest.name]: spec }
  const packages = {
    '': { name: 'consumer', dependencies },
    [`node_modules/${manifest.name}`]: { version: manifest.version, resolved: spec, dependencies: manifest.dependencies },
  }
  const pending = Object.keys(manifest.dependencies ?? {})
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (packages[`node_modules/${name}`]) continue
    const entry = lock.packages[`node_modules/${name}`]
    if (!entry) throw new Error(`${name} is not at the top level of package-lock.json`)
    packages[`node_modules/${name}`] = entry
    pending.push(...Object.keys(entry.dependencies ?? {}))
  }
  const appManifest = { name: 'consumer', private: true, type: 'module', dependencies }
  await writeFile(path.join(app, 'package.json'), JSON.stringify(appManifest, null, 2))
  await writeFile(path.join(app, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2))
  await runOk('npm', ['ci', '--offline', '--no-audit', '--no-fund'], app)
  return app
}

/** Where the package was installed in `app`, and whether that is a real directory (not a link). */
export async function installed(app) {
  const dir = path.join(app, 'node_modules', manifest.name)
  return { dir, copied: (await realpath(dir)) === dir }
}

export function readText(dir, file) {
  return readFile(path.join(dir, file), 'utf8')
}

export function exists(dir, file) {
  return existsSync(path.join(dir, file))
}

/** Writes the README's typed example, as the installed package ships it, to `app`/readme-example.ts. */
export async function addReadmeExample(app) {
  const { dir } = await installed(app)
  const readme = await readFile(path.join(dir, 'README.md'), 'utf8')
  const at = readme.indexOf(MARKER)
  if (at < 0) throw new Error(`README.md has no example marked ${MARKER}`)
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at))
  if (!block) throw new Error(`no \`\`\`ts block after ${MARKER} in README.md`)
  await writeFile(path.join(app, 'readme-example.ts'), block[1])
}

/** The repo's tsc on one of the app's tsconfig files. */
export function tsc(app, project) {
  return run(process.execPath, [TSC, '-p', project], app)
}

/** `file(line,col): error TSnnnn: message` lines of tsc's output. */
export function tscErrors(output) {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)].map(([, file, line, code, message]) => ({
    file,
    line: Number(line),
    code,
    message,
  }))
}

/** `vite build` in the app, as its user would run it (no config file): the app's dist/. */
export async function viteBuild(app) {
  await runOk(process.execPath, [VITE, 'build', '--logLevel', 'warn'], app)
  return path.join(app, 'dist')
}
