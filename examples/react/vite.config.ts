import { defineConfig } from 'vite'
import { exampleConfig } from '../shared.js'

export default defineConfig({ ...exampleConfig('react'), oxc: { jsx: { runtime: 'automatic' } } })
