import { defineConfig } from 'vite'
import { exampleConfig } from '../shared.js'

export default defineConfig({
  ...exampleConfig('vue'),
  define: { __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
})
