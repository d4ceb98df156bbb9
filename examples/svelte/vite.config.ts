import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'
import { exampleConfig } from '../shared.js'

export default defineConfig(exampleConfig('svelte', svelte({ configFile: false })))
