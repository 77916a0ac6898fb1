/**
 * The Parquet thread's heap is the one its resource limits give it (src/exports/writers.ts PARQUET_HEAP),
 * in a process run as `npm start` runs the server: with the flag that gives the main thread 64 MB
 * semi-spaces, which V8 would otherwise apply to the thread too (src/thread.ts says why it does not:
 * its young generation grew to 128 MB, most of what a Parquet export of a million entities grew the server by).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PARQUET_HEAP } from '../../../src/exports/writers.ts';
import { START_NODE_FLAGS } from '../../helpers/start-command.ts';

const run = promisify(execFile);
const ROOT = new URL('../../..', import.meta.url).pathname;

describe('the Parquet thread under npm start flags', () => {
  it('has the young generation its resource limits give it, not the main thread\'s', async () => {
    expect(START_NODE_FLAGS.some((flag) => flag.startsWith('--max-semi-space-size='))).toBe(true);
    const { stdout } = await run(process.execPath, [...START_NODE_FLAGS, '--import', 'tsx', 'test/helpers/parquet-thread-heap.ts'], { cwd: ROOT });
    const { newSpaceMb } = JSON.parse(stdout) as { newSpaceMb: number };
    expect(newSpaceMb).toBeGreaterThan(0);
    expect(newSpaceMb).toBeLessThanOrEqual(PARQUET_HEAP.maxYoungGenerationSizeMb);
  }, 60_000);
});
