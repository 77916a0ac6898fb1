/**
 * An export reads the list with its filter narrowed to the ids it reads now: a window of ids for a
 * full export, the changed ids for an incremental one. The narrowed filter must stay within the
 * filter grammar's limits (docs/read-api.md): a filter that leaves no room is refused when the export
 * is asked for, and changed ids are cut into lists that fit beside it.
 */
import { AppError } from '../errors.ts';
import { FILTER_LIMITS, parseFilter } from '../filter/index.ts';

/** A filter that filters: the list reads an empty or all-whitespace one as none. */
const given = (filter: string | null): string | null => (filter?.trim() ? filter : null);

/** The filter narrowed to the ids `from`..`to`. */
export const withinIds = (filter: string | null, from: number, to: number): string =>
  `and(${given(filter) ? `${filter}, ` : ''}id[gte]:${from}, id[lte]:${to})`;

const amongIds = (filter: string | null, ids: readonly number[]): string => {
  const condition = `id[in_any]:${ids.join('|')}`;
  return given(filter) ? `and(${filter}, ${condition})` : condition;
};

/** Refuses (400 on `path`) a filter that its narrowing would take past the grammar's limits. */
export function checkNarrowable(filter: string, path: string): void {
  const largest = 2 ** 31 - 1;
  for (const narrowed of [withinIds(filter, largest, largest), amongIds(filter, [largest])]) {
    try {
      parseFilter(narrowed);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const message = `is too large for an export, which narrows it to ranges of ids (one more level, two more conditions, about 50 more characters): ${error.message}`;
      throw new AppError(error.code, `Invalid filter: ${message}`, { details: [{ path, message }] });
    }
  }
}

/** The filter narrowed to `ids`, as few statements' worth as the length limit allows: each fits. */
export function amongIdsInParts(filter: string | null, ids: readonly number[]): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < ids.length) {
    let end = Math.min(ids.length, start + FILTER_LIMITS.maxListValues);
    // Shortened until it fits (ids are at most 10 digits: a few halvings at most).
    while (end - start > 1 && amongIds(filter, ids.slice(start, end)).length > FILTER_LIMITS.maxLength) end = start + Math.ceil((end - start) / 2);
    parts.push(amongIds(filter, ids.slice(start, end)));
    start = end;
  }
  return parts;
}
