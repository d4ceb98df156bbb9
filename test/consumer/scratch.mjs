/**
 * A scratch app outside the repo that installs the packed tarball as a user would: `npm pack`
 * (which runs `prepack`), then `npm ci --offline` from a lockfile that pins the package's own
 * dependencies to the repo's lockfile entries, so npm takes them from the cache `npm ci` filled
 * (a bare `npm install --offline <tarball>` needs registry metadata that npm ci never fetches).
 * The app's tools (vite, typescript, webpack, esbuild) are the repo's own. Plain JavaScript with a
 * .d.mts beside it, as scripts/chromium.mjs: the project type-checks without Node's types.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import sizeLimits from '../../.size-limit.js'
import { viteFirstLoad as firstLoad } from '../../scripts/first-load.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TEMPLATE = fileURLToPath(new URL('./app', import.meta.url))
const require = createRequire(import.meta.url)
const TSC = require.resolve('typescript/bin/tsc')
const VITE = path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js')
const esbuild = require('esbuild')
const webpack = require('webpack')
const ts = require('typescript')
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

/** A command-line tool of the repo's dev dependencies (`attw`, `publint`), run on `args` from the repo. */
export function devTool(name, args) {
  return run(path.join(ROOT, 'node_modules', '.bin', name), args, ROOT)
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

/** `npm pack` of the repo into `dir`: the tarball's path, the sorted list of its files and their bytes. */
export async function pack(dir) {
  const stdout = await runOk('npm', ['pack', '--json', '--pack-destination', dir], ROOT)
  // prepack's own output may come first on stdout: the report is the JSON array at the end.
  const [report] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1))
  return { tarball: path.join(dir, report.filename), files: report.files.map((file) => file.path).sort(), unpackedSize: report.unpackedSize }
}

/**
 * What the app installs besides the package, at the repo's locked versions: `@azure/cosmos`,
 * `@tanstack/query-persist-client-core`, `workbox-core` and `serwist`, the optional peers a user of
 * `idb-ttl/cosmos`, `idb-ttl/tanstack` and `idb-ttl/workbox` adds (with Workbox's strategies and
 * routing, which the app's workbox.ts and the docs' blocks use, and TanStack's async-storage persister, which docs/tanstack.md's second block uses), and `fake-indexeddb`, which gives
 * the app's Node script (cosmos-node.ts) an IndexedDB.
 */
const APP_DEPENDENCIES = ['@azure/cosmos', '@tanstack/query-persist-client-core', '@tanstack/query-async-storage-persister', 'workbox-core', 'workbox-routing', 'workbox-strategies', 'serwist', 'fake-indexeddb']

/**
 * The lockfile entry that `name`, required by the package at `from` (a lockfile path, '' for the
 * app), resolves to, found as Node finds it: in `from`'s node_modules, then each parent's.
 */
function resolveLocked(lock, from, name) {
  for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
    const at = `${dir ? `${dir}/` : ''}node_modules/${name}`
    if (lock.packages[at]) return at
    if (!dir) throw new Error(`${name} (required by ${from || 'the app'}) is not in package-lock.json`)
  }
}

/** Creates the app from test/consumer/app in `base`/app and installs `tarball` into it. */
export async function scratchApp(base, tarball) {
  const app = path.join(base, 'app')
  await cp(TEMPLATE, app, { recursive: true })
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'))
  const spec = `file:${path.relative(app, tarball)}`
  const own = `node_modules/${manifest.name}`
  const dependencies = { [manifest.name]: spec }
  for (const name of APP_DEPENDENCIES) dependencies[name] = lock.packages[`node_modules/${name}`].version
  const packages = {
    '': { name: 'consumer', dependencies },
    [own]: { version: manifest.version, resolved: spec, dependencies: manifest.dependencies },
  }
  // Each locked package with the packages it needs, at the same lockfile paths as in the repo.
  const pending = [...APP_DEPENDENCIES.map((name) => ['', name]), ...Object.keys(manifest.dependencies ?? {}).map((name) => [own, name])]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const at = resolveLocked(lock, ...next)
    if (packages[at]) continue
    // The repo's flags say how the repo needs it (dev, peer); the app needs it plainly.
    const { dev, devOptional, peer, ...entry } = lock.packages[at]
    packages[at] = entry
    pending.push(...Object.keys(entry.dependencies ?? {}).map((name) => [at, name]))
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

/** The line right before a block that keeps it out of the check: `<!-- not type-checked: why -->`. */
const SKIP = /^<!--\s*not type-checked:\s*(\S.*?)\s*-->$/

/**
 * The ```ts (or ```typescript) blocks of a markdown text: the line of each opening fence
 * (1-based), the code, and the reason given when the line before the fence (blank lines aside)
 * marks it as not type-checked. Fences of other languages are stepped over whole, so nothing
 * inside them is taken for a block.
 */
export function tsBlocks(markdown) {
  const lines = markdown.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i])
    if (!open) continue
    const [, indent, ticks, lang] = open
    let end = i + 1
    while (end < lines.length && !new RegExp(`^\\s*${ticks}\\s*$`).test(lines[end])) end++
    if (end === lines.length) throw new Error(`a fence opened at line ${i + 1} is never closed`)
    if (lang === 'ts' || lang === 'typescript') {
      let before = i - 1
      while (before >= 0 && lines[before].trim() === '') before--
      const skip = before >= 0 ? SKIP.exec(lines[before].trim()) : null
      const code = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      blocks.push({ line: i + 1, code: code.join('\n'), skipped: skip ? skip[1] : undefined })
    }
    i = end
  }
  return blocks
}

/** The markdown files under the repo's docs/ (recursively), the generated API reference aside. */
export async function docsFiles(dir = 'docs') {
  const files = []
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory() && file !== 'docs/reference') files.push(...(await docsFiles(file)))
    else if (entry.isFile() && entry.name.endsWith('.md')) files.push(file)
  }
  return files.sort()
}

/** The pages of docs/ the package leaves out: the `!docs/…` entries of `files` in package.json. */
export function repositoryOnlyDocs() {
  return manifest.files.filter((entry) => entry.startsWith('!docs/')).map((entry) => entry.slice(1)).sort()
}

/**
 * Writes every ```ts block of README.md (as the installed package ships it) and of the repo's
 * docs/ to `app`/blocks/, each as a module of its own, and `app`/tsconfig.blocks.json that
 * compiles them, with unused names as errors. Resolves to the blocks: their markdown file,
 * fence line, file in the app, and the reason of those left out.
 */
export async function addDocBlocks(app) {
  const { dir } = await installed(app)
  const sources = [{ source: 'README.md', text: await readFile(path.join(dir, 'README.md'), 'utf8') }]
  for (const file of await docsFiles()) sources.push({ source: file, text: await readFile(path.join(ROOT, file), 'utf8') })
  await mkdir(path.join(app, 'blocks'), { recursive: true })
  const blocks = []
  for (const { source, text } of sources) {
    for (const block of tsBlocks(text)) {
      const file = `blocks/${source.replace(/\.md$/, '').replace(/[^\w-]+/g, '-')}-L${block.line}.ts`
      blocks.push({ source, line: block.line, file, skipped: block.skipped })
      // `export {}` makes every block a module: its names are its own, and it may await at the top.
      if (!block.skipped) await writeFile(path.join(app, file), `${block.code}\nexport {}\n`)
    }
  }
  const config = {
    extends: './tsconfig.json',
    // skipLibCheck as in Vite's templates: @azure/cosmos's declarations (docs/cosmos.md) name
    // Node's Buffer. The package's own declarations are checked without it by tsconfig.json.
    compilerOptions: { noUnusedLocals: true, noUnusedParameters: true, skipLibCheck: true },
    files: blocks.filter((block) => !block.skipped).map((block) => block.file),
  }
  await writeFile(path.join(app, 'tsconfig.blocks.json'), JSON.stringify(config, null, 2))
  return blocks
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

/**
 * The app's page (test/consumer/app/index.html) for a bundle that is one script, `main.js`, beside
 * it, loaded as the bundle needs (`type`: a module, or a classic script).
 */
async function page(type) {
  const html = await readFile(path.join(TEMPLATE, 'index.html'), 'utf8')
  const source = '<script type="module" src="./main.ts"></script>'
  if (!html.includes(source)) throw new Error(`test/consumer/app/index.html no longer loads its script as ${source}`)
  return html.replace(source, `<script ${type === 'module' ? 'type="module"' : 'defer'} src="./main.js"></script>`)
}

/**
 * `esbuild main.ts --bundle --format=esm --minify --sourcemap --outdir=dist-esbuild`, as its user
 * would run it, and a page that loads the bundle: the app's dist-esbuild/. esbuild leaves
 * `new Worker(new URL('./purge-worker.js', import.meta.url))` as it is and ships no worker.
 */
export async function esbuildBuild(app) {
  const outdir = path.join(app, 'dist-esbuild')
  const result = await esbuild.build({
    absWorkingDir: app,
    entryPoints: ['main.ts'],
    bundle: true,
    format: 'esm',
    minify: true,
    sourcemap: true,
    outdir,
    logLevel: 'silent',
  })
  await writeFile(path.join(outdir, 'index.html'), await page('module'))
  return { dir: outdir, warnings: result.warnings.map((w) => w.text) }
}

/**
 * The budget of an app of `idb-ttl/core`, in bytes min+gzip: the limit of .size-limit.js's
 * `idb-ttl/core` row (`npm run size`), so that the two cannot drift apart.
 */
export const CORE_APP_BUDGET = (() => {
  const limit = sizeLimits.find((check) => check.name.startsWith('idb-ttl/core: '))?.limit
  const [, amount, unit] = /^([\d.]+) (B|kB)$/.exec(limit ?? '') ?? []
  if (!amount) throw new Error(`.size-limit.js: no limit in B or kB for idb-ttl/core (${limit})`)
  return Math.round(Number(amount) * (unit === 'kB' ? 1000 : 1))
})()

/**
 * The budgets of the first load of the minimal apps (core.ts, full.ts) in a Vite build, in bytes
 * min+gzip (the preload helper Vite wraps around an app's `import()`s included): what they measured
 * when last set, 11.90 and 17.78 kB (19.46 and 33.02 kB before issue #44; 12.90 and 18.15 before
 * stop 57, 12.16 and 17.73 before stop 58), plus about 50 B, a budget against growth. Issue #44's
 * targets are 9 and 14 kB; .size-limit.js's first-load rows weigh the entries alone (10.10 and 15.84 kB).
 */
export const FIRST_LOAD_BUDGET = { core: 11_950, full: 17_830 }

/**
 * `esbuild core.ts --bundle --format=esm --minify`: the app that uses only `idb-ttl/core`, as its
 * user ships it (the worker is a file of its own). Resolves to the bundle's text, its gzipped
 * bytes, and the files bundled (esbuild's metafile, relative to the app).
 */
export async function esbuildCoreApp(app) {
  const result = await esbuild.build({ absWorkingDir: app, entryPoints: ['core.ts'], bundle: true, format: 'esm', minify: true, write: false, metafile: true, outdir: 'dist-core', logLevel: 'silent' })
  const [bundle] = result.outputFiles
  return { code: bundle.text, gzipped: gzipSync(bundle.contents).length, inputs: Object.keys(result.metafile.inputs) }
}

/**
 * The first load of an app of `entry` (core.ts, full.ts) in a Vite production build with code
 * splitting, as issue #44 counts it: the entry chunk and the chunks it imports statically, each
 * min+gzip, apart from the chunks it loads with `import()` (at the first idle callback). Resolves
 * to the first load's bytes and files (code included), and the chunks loaded later.
 */
export function viteFirstLoad(app, entry) {
  return firstLoad(app, entry)
}

/** Copies the package's dist/purge-worker.js into `dir`, as the docs tell esbuild's users to. */
export async function copyWorker(app, dir) {
  const { dir: installedDir } = await installed(app)
  await cp(path.join(installedDir, 'dist', 'purge-worker.js'), path.join(dir, 'purge-worker.js'))
}

/**
 * webpack 5 in production mode with no configuration beyond entry and output, and a page that
 * loads the bundle: the app's dist-webpack/. webpack reads JavaScript only, so main.ts is first
 * stripped of its types (by esbuild, one file, imports left as they are), as a loader would.
 * Resolves to the output directory, the files webpack emitted, and its warnings.
 */
export async function webpackBuild(app) {
  const source = path.join(app, 'webpack-src')
  await esbuild.build({ absWorkingDir: app, entryPoints: ['main.ts', 'dedicated.ts'], outdir: source, format: 'esm', logLevel: 'silent' })
  // The app's dedicated worker, stripped beside it.
  const main = path.join(source, 'main.js')
  await writeFile(main, (await readFile(main, 'utf8')).replace("'./dedicated.ts'", "'./dedicated.js'").replace('"./dedicated.ts"', '"./dedicated.js"'))
  const outdir = path.join(app, 'dist-webpack')
  // webpack's defaults otherwise: main.js, chunks named by id, a worker by its `name` option.
  const config = { mode: 'production', context: app, entry: './webpack-src/main.js', output: { path: outdir } }
  const stats = await new Promise((resolve, reject) => {
    const compiler = webpack(config)
    compiler.run((error, result) => compiler.close(() => (error ? reject(error) : resolve(result))))
  })
  const info = stats.toJson({ all: false, assets: true, errors: true, warnings: true })
  if (stats.hasErrors()) throw new Error(`webpack failed:\n${info.errors.map((e) => e.message).join('\n')}`)
  await writeFile(path.join(outdir, 'index.html'), await page('classic'))
  return { dir: outdir, files: info.assets.map((asset) => asset.name).sort(), warnings: info.warnings.map((w) => w.message) }
}

/**
 * The names a module exports (values and types), read from its text alone (no imports followed):
 * declarations marked `export` and the names of `export { … }` lists, `from` or not.
 */
export async function exportsOf(file) {
  const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest)
  const names = []
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text))
    } else if (statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)))
      else if (statement.name) names.push(statement.name.text)
    }
  }
  return names.sort()
}

/**
 * The app's service worker (sw.ts) and the page that registers it (sw.html), built with
 * vite-plugin-pwa as its user would: `strategies: 'injectManifest'`, the precache manifest
 * injected into the worker. The worker is built as 'iife', since it is registered as a classic
 * script and the package holds `import.meta.url`. Resolves to the output directory, dist-pwa/.
 * Another worker of the app (`filename`) or format (`rollupFormat`) goes to a directory of its own.
 */
export async function vitePwaBuild(app, filename = 'sw.ts', rollupFormat = 'iife') {
  const { build } = await import('vite')
  const { VitePWA } = await import('vite-plugin-pwa')
  const outDir = path.join(app, filename === 'sw.ts' && rollupFormat === 'iife' ? 'dist-pwa' : `dist-pwa-${path.basename(filename, '.ts')}-${rollupFormat}`)
  await build({
    root: app,
    configFile: false,
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true, rollupOptions: { input: { sw: path.join(app, 'sw.html') } } },
    plugins: [
      VitePWA({
        strategies: 'injectManifest',
        srcDir: '.',
        filename,
        injectRegister: false,
        manifest: false,
        injectManifest: { rollupFormat },
      }),
    ],
  })
  return outDir
}

/**
 * `esbuild sw.ts --bundle --format=iife --outfile=dist-esbuild-sw/sw.js`, as its user would run
 * it, beside a copy of sw.html: the app's dist-esbuild-sw/ and esbuild's warnings (another
 * `entry` of the app, to a directory of its own).
 */
export async function esbuildServiceWorker(app, entry = 'sw.ts') {
  const outdir = path.join(app, entry === 'sw.ts' ? 'dist-esbuild-sw' : `dist-esbuild-${path.basename(entry, '.ts')}`)
  const result = await esbuild.build({
    absWorkingDir: app,
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    minify: true,
    outfile: path.join(outdir, `${path.basename(entry, '.ts')}.js`),
    logLevel: 'silent',
  })
  await cp(path.join(app, 'sw.html'), path.join(outdir, 'sw.html'))
  return { dir: outdir, warnings: result.warnings.map((w) => w.text) }
}

/**
 * Runs the app's Node program (cosmos-node.ts) against the Cosmos DB server at `endpoint`:
 * esbuild strips its types and leaves every package external, so Node resolves `idb-ttl`,
 * `idb-ttl/cosmos` and `@azure/cosmos` from the app's node_modules, through their exports maps.
 */
export async function runCosmosNode(app, endpoint) {
  const outfile = path.join(app, 'dist-node', 'cosmos-node.mjs')
  await esbuild.build({ absWorkingDir: app, entryPoints: ['cosmos-node.ts'], bundle: true, packages: 'external', platform: 'node', format: 'esm', outfile, logLevel: 'silent' })
  return run(process.execPath, [outfile, endpoint], app)
}
