/**
 * How many requests this instance is serving now. Background work that competes with them for the
 * CPU and the database (an export's reads, src/exports/job.ts) asks `idle` before each statement and
 * waits until none is in flight, so the API's clients come first; it waits at most `patienceMs`, so
 * an instance that is never idle still makes progress, more slowly.
 */
export class Serving {
  #inFlight = 0;
  readonly #waiting = new Set<() => void>();

  started(): void {
    this.#inFlight += 1;
  }

  ended(): void {
    this.#inFlight -= 1;
    if (this.#inFlight > 0) return;
    for (const resume of this.#waiting) resume();
    this.#waiting.clear();
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
