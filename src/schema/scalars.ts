/**
 * Custom scalars: timestamps and dates as ISO 8601 strings, money as JSON numbers (src/values/codecs.ts).
 * Each names its format with `@specifiedBy`, so code generators can map it to a type of their own
 * (docs/graphql-errors.md shows a GraphQL Code Generator `scalars` mapping).
 */
import { GraphQLError, Kind } from 'graphql';
import { CODECS } from '../values/codecs.ts';
import { builder } from './builder.ts';

const toDate = (value: unknown, what: string): Date => {
  const date = typeof value === 'string' || value instanceof Date ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new GraphQLError(`${what} must be an ISO 8601 string`);
  return date;
};

builder.scalarType('DateTime', {
  description: 'An ISO 8601 date-time in UTC, e.g. 2026-11-21T09:30:00.000Z',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time.html',
  serialize: CODECS.datetime.serialize,
  parseValue: (value) => toDate(value, 'DateTime'),
  parseLiteral: (ast) => toDate(ast.kind === Kind.STRING ? ast.value : undefined, 'DateTime'),
});

builder.scalarType('Date', {
  description: 'An ISO 8601 calendar date, e.g. 2026-11-21',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
  serialize: CODECS.date.serialize,
  parseValue: (value) => toDate(value, 'Date'),
  parseLiteral: (ast) => toDate(ast.kind === Kind.STRING ? ast.value : undefined, 'Date'),
});

builder.scalarType('Money', {
  description: 'An amount in whole US dollars, as a JSON number (an integer)',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc8259#section-6',
  serialize: CODECS.money.serialize,
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('Money must be an integer');
    return BigInt(value);
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc8259',
  serialize: (value) => value,
  parseValue: (value) => value,
});
