/**
 * The headers a request's answer gathers while it is served (RateLimit-* from authentication, a
 * `Deprecation` from the filter), copied onto the response at the end by whichever transport answers.
 * The part of the Fetch API's `Headers` the transports use, on a Map: undici's `Headers` validates and
 * sorts on every call, which showed in the profile of a small read. Names are kept in lower case, as
 * `Headers` keeps them, and come back in the order they were first set.
 */
export class HeaderBag {
  readonly #values = new Map<string, string>();

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), value);
  }

  get(name: string): string | undefined {
    return this.#values.get(name.toLowerCase());
  }

  /**
   * The part of a response's header API that middleware writing headers uses (`cors`, `vary`), so
   * such a step gathers its headers here instead of writing them on the response: a response with
   * headers set before `writeHead` takes node's slow path (each one removed, then appended again).
   */
  getHeader(name: string): string | undefined {
    return this.get(name);
  }

  setHeader(name: string, value: string | number | readonly string[]): void {
    this.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }

  forEach(callback: (value: string, name: string) => void): void {
    this.#values.forEach(callback);
  }
}
