// `npm test` must pass on a fresh clone: install the locked dependencies first when they are missing.
import { existsSync } from 'node:fs'
import { execSync } from 'node:child_process'

if (!existsSync('node_modules/.package-lock.json')) {
  console.log('Dependencies are not installed yet: running npm ci')
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' })
}
