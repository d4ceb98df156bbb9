// Installs Debian's Chromium when it is missing (root), or says exactly what to run.
import { existsSync } from 'node:fs'
import { execSync } from 'node:child_process'
import { CHROMIUM_PATH } from './chromium.mjs'

if (!existsSync(CHROMIUM_PATH)) {
  const command = 'apt-get update && apt-get install -y chromium'
  if (process.getuid?.() === 0) {
    console.log(`Chromium not found at ${CHROMIUM_PATH}; installing it: ${command}`)
    execSync(command, { stdio: 'inherit', shell: '/bin/bash' })
  } else {
    console.error(`Chromium not found at ${CHROMIUM_PATH}. Install Debian's Chromium first:\n  sudo sh -c '${command}'`)
    process.exit(1)
  }
}
