// Which Accept headers get a CSV export instead of JSON, with and without negotiating them.
import { describe, expect, it } from 'vitest';
import { prefersCsv } from '../../../src/http/rest-route.ts';

describe('prefersCsv', () => {
  it.each([
    ['text/csv', true],
    ['text/*', true],
    ['text/csv, application/json;q=0.5', true],
    ['application/json, text/csv;q=0.5', false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['application/json', false],
    ['image/png', false],
    [undefined, false],
  ])('%s: %s', (accept, expected) => {
    expect(prefersCsv(accept)).toBe(expected);
  });
});
