// Installs the Debian packages of the engines named on the command line (all three by default)
// when any of their files is missing: as root at once, otherwise it prints the exact command.
import { existsSync } from 'node:fs'
import { execSync } from 'node:child_process'
import { ENGINES } from './browsers.mjs'

const wanted = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(ENGINES)
const unknown = wanted.filter((name) => !(name in ENGINES))
if (unknown.length > 0) {
  console.error(`unknown engine(s): ${unknown.join(', ')}; known: ${Object.keys(ENGINES).join(', ')}`)
  process.exit(2)
}
const missing = wanted.filter((name) => ENGINES[name].files.some((file) => !existsSync(file)))
if (missing.length > 0) {
  const packages = [...new Set(missing.flatMap((name) => ENGINES[name].packages))]
  const command = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`
  const what = missing.map((name) => `${name} (${ENGINES[name].files.filter((file) => !existsSync(file)).join(', ')})`).join('; ')
  if (process.getuid?.() === 0) {
    console.log(`Missing: ${what}. Installing: ${command}`)
    execSync(command, { stdio: 'inherit', shell: '/bin/bash' })
  } else {
    console.error(`Missing: ${what}. Install Debian's packages first:\n  sudo sh -c '${command}'`)
    process.exit(1)
  }
}
