import type { FilterCondition, FilterExpr, FilterScalar } from './ast.ts';

// Mirrors lexer.ts: a bare value is a non-empty run without these, and surrounding whitespace is trimmed.
const NEEDS_QUOTES = /[,()|"]|^[ \t\n\r]|[ \t\n\r]$|^$/;

/**
 * The canonical text of a filter: no whitespace, every operator written out (`name[eq]:x`, never the
 * `name:x` shorthand), values quoted exactly when they were quoted. `parseFilter(printFilter(ast))` equals
 * `ast` except for positions. Used to store and echo filters in one stable form.
 */
export function printFilter(expr: FilterExpr): string {
  if (expr.type === 'condition') return printCondition(expr);
  return `${expr.kind}(${expr.children.map(printFilter).join(',')})`;
}

function printCondition(condition: FilterCondition): string {
  const ref = condition.ref === undefined ? '' : `${condition.ref}.`;
  const relation = condition.relation === undefined ? '' : `${condition.relation}__`;
  const values = condition.values.map(printScalar).join('|');
  return `${ref}${relation}${condition.field}[${condition.op}]:${values}`;
}

function printScalar(scalar: FilterScalar): string {
  // A bare value that cannot be written bare (only a hand-built tree has one) means the same text quoted.
  if (!scalar.quoted && !NEEDS_QUOTES.test(scalar.text)) return scalar.text;
  return `"${scalar.text.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}
