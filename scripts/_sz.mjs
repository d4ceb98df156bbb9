import * as esbuild from 'esbuild'
import { gzipSync } from 'zlib'
const entry = process.argv[2] || 'src/core.ts'
const r = await esbuild.build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', write: false, metafile: true, platform: 'browser', external: [] , loader: {'.ts':'ts'}, define: {} })
const out = Object.values(r.metafile.outputs)[0]
const rows = Object.entries(out.inputs).map(([k,v])=>[k,v.bytesInOutput]).sort((a,b)=>b[1]-a[1])
let total=0; for (const [k,v] of rows){ total+=v; console.log(String(v).padStart(6), k) }
console.log('total min', total, 'gzip', gzipSync(r.outputFiles[0].contents).length)
