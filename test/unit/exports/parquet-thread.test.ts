/**
 * The Parquet thread (src/exports/parquet-worker.mjs): its heap is the one its resource limits give it
 * (src/exports/writers.ts PARQUET_HEAP) in a process run as `npm start` runs the server, with the flag
 * that gives the main thread 64 MB semi-spaces, which V8 would otherwise apply to the thread too
 * (src/thread.ts says why it does not: its young generation grew to 128 MB, most of what a Parquet
 * export of a million entities grew the server by). And it runs 10 nice levels below the server.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { JsonText } from '../../../src/compile/json-text.ts';
import { FileSink } from '../../../src/exports/file-sink.ts';
import { fileWriter, PARQUET_HEAP } from '../../../src/exports/writers.ts';
import { START_NODE_FLAGS } from '../../helpers/start-command.ts';

const run = promisify(execFile);
const ROOT = new URL('../../..', import.meta.url).pathname;

/** The nice value of each of this process's threads (/proc/self/task/<tid>/stat, its 19th field). */
const threadNices = (): number[] =>
  readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])];
    } catch {
      return []; // a thread that ended while listed
    }
  });

describe('the Parquet thread', () => {
  it("has the young generation its resource limits give it under npm start's flags, not the main thread's", async () => {
    expect(START_NODE_FLAGS.some((flag) => flag.startsWith('--max-semi-space-size='))).toBe(true);
    const { stdout } = await run(process.execPath, [...START_NODE_FLAGS, '--import', 'tsx', 'test/helpers/parquet-thread-heap.ts'], { cwd: ROOT });
    const { newSpaceMb } = JSON.parse(stdout) as { newSpaceMb: number };
    expect(newSpaceMb).toBeGreaterThan(0);
    expect(newSpaceMb).toBeLessThanOrEqual(PARQUET_HEAP.maxYoungGenerationSizeMb);
  }, 60_000);

  it('runs 10 nice levels below the server while it encodes, and is gone after', async () => {
    const background = Math.min(19, getPriority() + 10);
    const before = threadNices().filter((nice) => nice === background).length;
    const sink = new FileSink(async () => undefined);
    const writer = fileWriter('parquet', [{ name: 'id', type: { kind: 'integer' } }], sink, false);
    await writer.write([new JsonText('{"id":1}')]);
    // The thread lowers its priority as it starts, and a write does not wait for the thread to start.
    await vi.waitFor(() => expect(threadNices().filter((nice) => nice === background)).toHaveLength(before + 1), { timeout: 10_000 });
    await writer.end();
    await sink.close();
    expect(threadNices().filter((nice) => nice === background)).toHaveLength(before);
  });
});
