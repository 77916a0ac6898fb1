/** Custom scalars: timestamps and dates as ISO 8601 strings, money as JSON numbers (src/values/codecs.ts). */
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
  serialize: CODECS.datetime.serialize,
  parseValue: (value) => toDate(value, 'DateTime'),
  parseLiteral: (ast) => toDate(ast.kind === Kind.STRING ? ast.value : undefined, 'DateTime'),
});

builder.scalarType('Date', {
  description: 'An ISO 8601 calendar date, e.g. 2026-11-21',
  serialize: CODECS.date.serialize,
  parseValue: (value) => toDate(value, 'Date'),
  parseLiteral: (ast) => toDate(ast.kind === Kind.STRING ? ast.value : undefined, 'Date'),
});

builder.scalarType('Money', {
  description: 'An amount in whole US dollars',
  serialize: CODECS.money.serialize,
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('Money must be an integer');
    return BigInt(value);
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
});
