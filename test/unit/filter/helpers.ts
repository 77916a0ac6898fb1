// Builders for expected trees (positions left out) and a catcher for the AppError a call throws.
import { expect } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import type { FilterExpr } from '../../../src/filter/index.ts';

export interface QuotedValue {
  quoted: string;
}

/** A quoted value in `cond(...)`; plain strings are bare values. */
export const q = (text: string): QuotedValue => ({ quoted: text });

/** `cond('entity.investor__name', 'eq', 'x')` → the condition node without positions. */
export function cond(path: string, op: string, ...values: (string | QuotedValue)[]) {
  const [ref, rest] = path.includes('.') ? (path.split('.') as [string, string]) : [undefined, path];
  const split = rest.indexOf('__');
  const relation = split > 0 ? rest.slice(0, split) : undefined;
  const field = split > 0 ? rest.slice(split + 2) : rest;
  return {
    type: 'condition',
    ...(ref === undefined ? {} : { ref }),
    ...(relation === undefined ? {} : { relation }),
    field,
    op,
    values: values.map((value) =>
      typeof value === 'string' ? { text: value, quoted: false } : { text: value.quoted, quoted: true },
    ),
  };
}

type Node = ReturnType<typeof cond> | { type: 'combinator'; kind: 'and' | 'or'; children: Node[] };

export const and = (...children: Node[]): Node => ({ type: 'combinator', kind: 'and', children });
export const or = (...children: Node[]): Node => ({ type: 'combinator', kind: 'or', children });

/** The tree without `position` and `opPosition`, to compare shapes. */
export function withoutPositions(expr: FilterExpr): unknown {
  if (expr.type === 'combinator') {
    return { type: 'combinator', kind: expr.kind, children: expr.children.map(withoutPositions) };
  }
  const { position: _position, opPosition: _opPosition, values, ...rest } = expr;
  return { ...rest, values: values.map(({ text, quoted }) => ({ text, quoted })) };
}

/** Runs `fn`, expects it to throw an AppError, and returns that error. */
export function thrownBy(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

/** A filter error as clients see it: the code, the message, and its single `filter` details row. */
export function expectFilterError(error: AppError, code: string, message: string | RegExp): void {
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toContain(message);
  else expect(error.message).toMatch(message);
  expect(error.details).toEqual([{ path: 'filter', message: error.message }]);
}
