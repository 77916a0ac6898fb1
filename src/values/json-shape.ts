/**
 * The shape of a JSON value, bounded before anything recurses over it: how deep, how many values, no
 * `__proto__` key (JavaScript cannot hold it as data), and with `exact` only what is stored and read
 * back unchanged. Pure and never recursive, so a value nested 10,000 levels costs one loop, not the
 * stack. Request bodies (src/http/json-body.ts) and free-form fields (src/management/input.ts) use it.
 */
import { NUL_MESSAGE } from '../errors.ts';

export interface JsonLimits {
  /** Levels of arrays and objects: `{}` is 1 deep, `{"a": []}` 2. */
  maxDepth: number;
  /** Values in all: every array element, every object member, and the whole value itself. */
  maxValues: number;
  /**
   * `exact`: only what is stored and read back unchanged is accepted: null, booleans, finite numbers
   * (integers within ±2^53), strings without NUL or lone surrogates, arrays and plain objects.
   */
  exact?: boolean;
  /** With `exact`: the most characters the value may take as JSON text. */
  maxLength?: number;
}

export const PROTO_KEY_MESSAGE = 'a "__proto__" key is not accepted (JavaScript cannot hold it as data)';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const LONE_SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate (it cannot be stored as UTF-8)';

/** True when the text holds a lone surrogate (which UTF-8, hence PostgreSQL, cannot store). */
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

interface Visit {
  value: unknown;
  depth: number;
  /** Index of the parent container's visit in `trail`, -1 for the root. */
  parent: number;
  key: string;
}

/** A way a JSON value breaks its limits: `at` is where, as keys and indexes below the value. */
export interface JsonProblem {
  at: string[];
  message: string;
}

/**
 * The first way `value` breaks `limits`, or undefined. Depth and size problems are the whole value's
 * (`at` is empty); a bad key or leaf is named where it is. Never recursive.
 */
export function findJsonProblem(value: unknown, limits: JsonLimits): JsonProblem | undefined {
  const tooMany = { at: [], message: `must hold at most ${limits.maxValues.toLocaleString('en')} values (array elements and object members) in all` };
  /** The containers met so far, so that a visit's path is rebuilt only when it is reported. */
  const trail: Visit[] = [];
  const pathOf = (visit: Visit, key?: string): string[] => {
    const keys = key === undefined ? [] : [key];
    for (let at: Visit | undefined = visit; at && at.parent !== -1; at = trail[at.parent]) keys.unshift(at.key);
    return keys;
  };
  const stack: Visit[] = [{ value, depth: 0, parent: -1, key: '' }];
  let values = 1;
  while (stack.length) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current !== 'object' || current === null) {
      const problem = limits.exact ? leafProblem(current) : undefined;
      if (problem) return { at: pathOf(visit), message: problem };
      continue;
    }
    const depth = visit.depth + 1;
    if (depth > limits.maxDepth) return { at: [], message: `must nest arrays and objects at most ${limits.maxDepth} levels deep` };
    const parent = trail.push(visit) - 1;
    if (Array.isArray(current)) {
      values += current.length;
      if (values > limits.maxValues) return tooMany;
      // A hole (which JSON cannot make) would be written as null: it is visited as undefined and refused.
      for (let item = current.length - 1; item >= 0; item -= 1) {
        stack.push({ value: item in current ? current[item] : undefined, depth, parent, key: String(item) });
      }
      continue;
    }
    if (limits.exact) {
      const prototype: unknown = Object.getPrototypeOf(current);
      if (prototype !== Object.prototype && prototype !== null) return { at: pathOf(visit), message: 'must be a JSON value' };
    }
    const keys = Object.keys(current);
    values += keys.length;
    if (values > limits.maxValues) return tooMany;
    for (let at = keys.length - 1; at >= 0; at -= 1) {
      const key = keys[at]!;
      if (key === '__proto__') return { at: pathOf(visit, key), message: PROTO_KEY_MESSAGE };
      if (limits.exact && key.includes('\u0000')) return { at: pathOf(visit, key), message: `the key ${NUL_MESSAGE}` };
      if (limits.exact && hasLoneSurrogate(key)) return { at: pathOf(visit, key), message: `the key ${LONE_SURROGATE_MESSAGE}` };
      stack.push({ value: (current as Record<string, unknown>)[key], depth, parent, key });
    }
  }
  if (limits.exact && limits.maxLength !== undefined && JSON.stringify(value).length > limits.maxLength) {
    return { at: [], message: `must be at most ${limits.maxLength.toLocaleString('en')} characters as JSON` };
  }
  return undefined;
}

/** Why a scalar would not be stored as given, if it would not. */
function leafProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'boolean':
      return undefined;
    case 'number':
      if (!Number.isFinite(value)) return 'must be a finite number';
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) return 'must be an integer from -(2^53 - 1) to 2^53 - 1 (larger ones lose digits)';
      return undefined;
    case 'string':
      if (value.includes('\u0000')) return NUL_MESSAGE;
      if (hasLoneSurrogate(value)) return LONE_SURROGATE_MESSAGE;
      return undefined;
    case 'object':
      return undefined; // null
    default:
      return 'must be a JSON value (null, a boolean, a number, a string, an array or an object)';
  }
}
