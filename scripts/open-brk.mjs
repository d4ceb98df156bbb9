import { build } from 'esbuild'
const entry = process.argv[2]
const r = await build({ entryPoints: [entry], bundle: true, splitting: true, format: 'esm', minify: true, outdir: '/tmp/brk-open', metafile: true, write: true, external: ['idb','comlink'], define:{'import.meta.env':'{}'}, loader: {'.ts':'ts'} })
const outs = r.metafile.outputs
const main = Object.entries(outs).find(([k,v]) => v.entryPoint && v.entryPoint.endsWith(entry.replace(/^\.\//,'')))
const seen = new Set(); const files=[]
const walk = (k) => { if (seen.has(k)) return; seen.add(k); files.push(k); for (const i of outs[k].imports) if (i.kind==='import-statement' && !i.external) walk(i.path) }
walk(main[0])
const per = {}
for (const f of files) for (const [inp, v] of Object.entries(outs[f].inputs)) per[inp]=(per[inp]||0)+v.bytesInOutput
const tot = Object.values(per).reduce((a,b)=>a+b,0)
console.log('first-load minified total', tot)
for (const [k,v] of Object.entries(per).sort((a,b)=>b[1]-a[1]).slice(0, +process.argv[3]||40)) console.log(String(v).padStart(6), k)
