// The one Node global cosmos-node.ts reads, declared here: the app installs no @types/node.
declare const process: { argv: string[] }
