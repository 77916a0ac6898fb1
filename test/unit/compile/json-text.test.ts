import { describe, expect, it, vi } from 'vitest';
import { JsonText, materialize, stringify } from '../../../src/compile/json-text.ts';

const record = (id: number) => new JsonText(JSON.stringify({ id, name: `Zürich "${id}" ✓`, tags: [{ id: 1, name: 'a\\b' }] }));

describe('stringify splices the texts PostgreSQL wrote', () => {
  const envelopes: [string, unknown][] = [
    ['a page', { data: [record(1), record(2), record(3)], page: { limit: 3, offset: 0, next_cursor: 'eyJrIjpbMV19' } }],
    ['one record', { data: record(7) }],
    ['two records and nothing else', { first: record(7), 'sec"ond': record(8) }],
    ['nested roots', { data: { a: { data: [record(1)] }, b: null, c: { data: [] } } }],
    ['no texts', { data: [], page: { next_cursor: null } }],
    ['an empty text array and a null record', { data: { list: [], record: null, other: record(9) } }],
  ];
  it.each(envelopes)('%s: the same JSON as the records written as objects', (_name, envelope) => {
    expect(stringify(envelope)).toBe(JSON.stringify(materialize(envelope)));
  });

  it('a string that is a lone NUL elsewhere in the value cannot shift a text: written the slow way', () => {
    const envelope = { data: [record(1), record(2)], note: '\u0000' };
    expect(stringify(envelope)).toBe(JSON.stringify(materialize(envelope)));
  });

  it('a record\'s envelope is joined from its texts, without JSON.stringify meeting them', () => {
    const met = vi.spyOn(JsonText.prototype, 'toJSON');
    try {
      expect(stringify({ data: record(4) })).toBe(JSON.stringify({ data: JSON.parse(record(4).text) }));
      expect(met).not.toHaveBeenCalled();
      stringify({ data: [record(4)] });
      expect(met).toHaveBeenCalledTimes(1);
    } finally {
      met.mockRestore();
    }
  });

  it('outside stringify a text is written as its parsed value', () => {
    expect(JSON.stringify({ data: record(3) })).toBe(JSON.stringify({ data: JSON.parse(record(3).text) }));
  });
});
