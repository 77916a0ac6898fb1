/** The transport-neutral REST request the handler works on (express.ts builds it). */
import type { AggregateExportReceiver } from '../aggregate/export.ts';
import type { Principal } from '../auth/principal.ts';
import type { CancelSignal } from '../db/client.ts';
import { NUL_MESSAGE, validationError, type ErrorDetail } from '../errors.ts';
import { closeMatches } from '../filter/suggest.ts';
import type { HeaderBag } from '../header-bag.ts';

export type QueryValue = string | string[] | undefined;

export interface RestRequest {
  method: string;
  path: string;
  query: Record<string, QueryValue>;
  body: unknown;
  requestId: string;
  header(name: string): string | undefined;
  /** Headers added while serving the request; the handler puts them on the response. */
  responseHeaders: HeaderBag;
  /** Set by the handler once a route matches: its template, e.g. `GET /api/entities/{id}`. */
  endpoint?: string;
  /** Told who the caller is once the token is verified (usage counting). */
  onIdentified?(principal: Principal): void;
  /** Aborted when the client leaves before the answer. */
  signal?: CancelSignal;
  /** A CSV export of an aggregate: the aggregate hands over its statement of every group instead of a page. */
  exportAggregate?: AggregateExportReceiver;
  /**
   * Served as a later pass of this request (an MCP tool call of its HTTP request): authenticated,
   * charged to the rate limit and given its context once, with that one.
   */
  passOf?: RestRequest;
}

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/**
 * A route's integer query parameters and the range each takes (`limit`: 1 to the list's maximum), as
 * /openapi.json states them; a parameter not listed takes any GraphQL Int (32 bits).
 */
export type IntegerBounds = Readonly<Record<string, { readonly min: number; readonly max: number }>>;

/** Read by the handler itself (src/rest/envelope.ts), on every route that returns records. */
const HANDLER_PARAMETERS = ['fields'];

/**
 * Reads query parameters as text, collecting every problem before failing (one detail per parameter).
 * A parameter nobody read is refused: `limt=5` silently returning 25 rows would be worse than a 400.
 */
export class QueryReader {
  readonly details: ErrorDetail[] = [];
  /** The parameters read so far (a route reads a handful: an array, not a Set per request). */
  private readonly read: string[] = [];

  constructor(
    private readonly query: Record<string, QueryValue>,
    private readonly bounds: IntegerBounds = {},
  ) {}

  string(name: string): string | undefined {
    this.read.push(name);
    const value = this.query[name];
    if (Array.isArray(value)) {
      this.details.push({ path: `query.${name}`, message: 'must be given once' });
      return undefined;
    }
    if (value?.includes('\u0000')) {
      this.details.push({ path: `query.${name}`, message: NUL_MESSAGE });
      return undefined;
    }
    return value;
  }

  /** A parameter that may be repeated (`metric=count&metric=sum:amount_usd`); absent is empty. */
  strings(name: string): string[] {
    this.read.push(name);
    const value = this.query[name];
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (values.some((item) => item.includes('\u0000'))) {
      this.details.push({ path: `query.${name}`, message: NUL_MESSAGE });
      return [];
    }
    return values;
  }

  /**
   * Refuses what is no GraphQL Int (32 bits, like the ids and counts a parameter stands for: `min`,
   * 0 for an offset, to its maximum), stating the parameter's whole range: the route's when it has
   * one (`limit=abc` on a list of at most 50 is `must be an integer from 1 to 50`). An Int past the
   * route's range goes on to the operation, which refuses it with the same range after checking
   * permissions (403 before 400).
   */
  integer(name: string, min = INT_MIN): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const value = /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= INT_MAX)) {
      const range = this.bounds[name] ?? { min, max: INT_MAX };
      this.details.push({ path: `query.${name}`, message: `must be an integer from ${range.min} to ${range.max}` });
      return undefined;
    }
    return value;
  }

  boolean(name: string): boolean | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    if (text !== 'true' && text !== 'false') {
      this.details.push({ path: `query.${name}`, message: 'must be true or false' });
      return undefined;
    }
    return text === 'true';
  }

  /** Throws one VALIDATION_ERROR listing every problem found so far, unknown parameters included. */
  done(): void {
    for (const name in this.query) {
      if (HANDLER_PARAMETERS.includes(name) || this.read.includes(name)) continue;
      const known = [...new Set([...HANDLER_PARAMETERS, ...this.read])];
      const matches = closeMatches([name], known);
      const help = matches.length ? `close matches: ${matches.join(', ')}` : `known: ${known.join(', ')}`;
      this.details.push({ path: `query.${name}`, message: `unknown parameter; ${help}` });
    }
    if (this.details.length) throw validationError(this.details);
  }
}
