/**
 * The requests in flight, as background work waits on them (src/http/serving.ts): no wait when none
 * is served, a wait that ends with the last request, and one that gives up after its patience; and
 * whether it serves traffic now (no request in flight, none ended lately), as an export asks before
 * running more than one statement at once.
 */
import { describe, expect, it } from 'vitest';
import { Serving } from '../../../src/http/serving.ts';

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('Serving', () => {
  it('is idle at once when no request is in flight', async () => {
    const serving = new Serving();
    expect(await settled(serving.idle(60_000))).toBe(true);
    serving.started();
    serving.ended();
    expect(await settled(serving.idle(60_000))).toBe(true);
  });

  it('waits until the last request in flight ends', async () => {
    const serving = new Serving();
    serving.started();
    serving.started();
    const waiting = serving.idle(60_000);
    expect(await settled(waiting)).toBe(false);
    serving.ended();
    expect(await settled(waiting)).toBe(false);
    serving.ended();
    expect(await settled(waiting)).toBe(true);
  });

  it('stops waiting after its patience while requests go on', async () => {
    const serving = new Serving();
    serving.started();
    const started = performance.now();
    await serving.idle(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    // A wait that gave up is not resumed again (nor kept) when the requests end.
    serving.ended();
    expect(await settled(serving.idle(60_000))).toBe(true);
  });

  it('is quiet with no request in flight, unless requests came closer together than the interval', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const serving = new Serving();
    expect(serving.quiet(200)).toBe(true);
    serving.started();
    expect(serving.quiet(0)).toBe(false);
    // A request alone (the first, or long after the one before it) is not traffic once it ended.
    serving.ended();
    expect(serving.quiet(200)).toBe(true);
    // A second one soon after it is: not quiet until the interval has passed since the last ended.
    serving.started();
    serving.ended();
    expect(serving.quiet(200)).toBe(false);
    await pause(50);
    expect(serving.quiet(200)).toBe(false);
    expect(serving.quiet(20)).toBe(true);
    await pause(200);
    expect(serving.quiet(200)).toBe(true);
    // Then one more, alone again: quiet at once after it.
    serving.started();
    serving.ended();
    expect(serving.quiet(200)).toBe(true);
  });
});
