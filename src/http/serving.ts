/**
 * How many requests this instance is serving now. Background work that competes with them for the
 * CPU and the database (an export's reads, src/exports/job.ts) asks `idle` before each statement and
 * waits until none is in flight, so the API's clients come first; it waits at most `patienceMs`, so
 * an instance that is never idle still makes progress, more slowly. It asks `quiet` before doing
 * more than one thing at once, and does so only while requests are not coming close together.
 */
export class Serving {
  #inFlight = 0;
  #lastEnded = Number.NEGATIVE_INFINITY;
  #endedBefore = Number.NEGATIVE_INFINITY;
  readonly #waiting = new Set<() => void>();

  started(): void {
    this.#inFlight += 1;
  }

  ended(): void {
    this.#inFlight -= 1;
    this.#endedBefore = this.#lastEnded;
    this.#lastEnded = performance.now();
    if (this.#inFlight > 0) return;
    for (const resume of this.#waiting) resume();
    this.#waiting.clear();
  }

  /**
   * True when the instance serves no traffic now: no request in flight, and the last one either ended
   * `ms` ago or came alone, `ms` or more after the one before it. Traffic is requests closer together
   * than that; a client polling now and then is not.
   */
  quiet(ms: number): boolean {
    if (this.#inFlight > 0) return false;
    return performance.now() - this.#lastEnded >= ms || this.#lastEnded - this.#endedBefore >= ms;
  }

  /** Resolves once no request is in flight, or after `patienceMs`. */
  idle(patienceMs: number): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const resume = () => {
        clearTimeout(timer);
        this.#waiting.delete(resume);
        resolve();
      };
      const timer = setTimeout(resume, patienceMs);
      this.#waiting.add(resume);
    });
  }
}
