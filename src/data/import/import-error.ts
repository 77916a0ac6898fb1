import type { z } from 'zod';

/**
 * A problem with the data being imported. The message always starts with the file name, and when the
 * problem sits in one record, its line and the field path: `entities.jsonl line 17: lat: ...`.
 */
export class ImportError extends Error {
  override name = 'ImportError';

  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly path?: string,
    /** Set when the problem is known only for a batch of lines (`line` is then its first line). */
    readonly lastLine?: number,
  ) {
    const where = line === undefined ? '' : lastLine === undefined ? ` line ${line}` : ` lines ${line}-${lastLine}`;
    super(`${file}${where}: ${path ? `${path}: ` : ''}${detail}`);
  }
}

/** `["tags", 0, "name"]` → `tags[0].name` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = { int: 'integer', number: 'number', string: 'string', boolean: 'boolean' };

/** One zod issue as the short message of an ImportError (path is reported separately). */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): { path: string; message: string } {
  const path = formatPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const received = valueAt(input, issue.path);
      if (received === undefined) return { path, message: 'required' };
      // Integer fields say so through their error map (zod itself reports them as "number").
      const expected = issue.message.startsWith('expected ')
        ? issue.message.slice('expected '.length)
        : (TYPE_WORDS[issue.expected] ?? issue.expected);
      return { path, message: `expected ${expected}, received ${describeValue(received)}` };
    }
    case 'unrecognized_keys':
      return { path: formatPath([...issue.path, issue.keys[0] ?? '']), message: 'unknown field' };
    case 'invalid_value':
      return { path, message: `expected one of ${issue.values.map((v) => String(v)).join(', ')}` };
    case 'invalid_format':
      return { path, message: isDefaultMessage(issue.message) ? `expected ${formatWord(issue.format)}` : issue.message };
    case 'invalid_union': {
      // Report the alternative that got furthest: one whose type matched but whose value did not.
      const branches = issue.errors.map((errors) => errors[0]).filter((inner) => inner !== undefined);
      const best = branches.find((inner) => inner.code !== 'invalid_type') ?? branches[0];
      if (!best) return { path, message: 'invalid value' };
      const inner = describeIssue({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue, input);
      return inner;
    }
    default:
      return { path, message: issue.message.replace(/^Invalid input: /, '') };
  }
}

function isDefaultMessage(message: string): boolean {
  return /^Invalid\b/.test(message);
}

function formatWord(format: string): string {
  if (format === 'date') return 'a date (YYYY-MM-DD)';
  if (format === 'datetime') return 'an ISO 8601 date-time with time zone (2024-01-31T12:00:00Z)';
  if (format === 'guid' || format === 'uuid') return 'a UUID';
  if (format === 'regex') return 'a value of the documented form';
  return `a valid ${format}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return `number ${value}`;
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}
