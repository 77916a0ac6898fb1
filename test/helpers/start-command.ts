// How `npm start` runs the server, read from package.json's `start` script: the tests' and benches'
// server processes run with the same node flags, so what they measure is what an operator runs.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../src/package-root.ts';

const start: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const words = start.split(/\s+/);
if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') throw new Error(`the start script is not \`node <flags> dist/main.js\`: ${start}`);

/** node's flags in the start script (`--enable-source-maps`, the young generation's size). */
export const START_NODE_FLAGS: readonly string[] = words.slice(1, -1);
