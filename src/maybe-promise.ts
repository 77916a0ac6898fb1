/**
 * An answer that is a value when it is known in memory and a promise when it needs the database or
 * Redis. Awaiting a value still costs a microtask and two promises, which made up most of a small
 * read's promises, so callers branch on `instanceof Promise` and await only a promise.
 */
export type MaybePromise<T> = T | Promise<T>;
