/**
 * The requests in flight, as background work waits on them (src/http/serving.ts): no wait when none
 * is served, a wait that ends with the last request, and one that gives up after its patience.
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
});
