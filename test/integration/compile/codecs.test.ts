/**
 * Each value codec's two writers agree (src/values/codecs.ts): the JSON PostgreSQL writes for a column
 * (`jsonSql`) is the JSON of the value the GraphQL scalar serializes (`serialize`), and a sort value
 * read back through `sortValueSql` makes the same cursor as the value Prisma hands over. Run on both
 * databases, whose drivers differ.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { Prisma } from '../../../src/db/generated/prisma/client.ts';
import type { ValueKind } from '../../../src/filter/fields/types.ts';
import { CODECS, NOT_OURS } from '../../../src/values/codecs.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
});

afterAll(async () => {
  await db?.destroy();
});

/** [kind, the column's SQL type, a stored value as SQL text, the value as Prisma reads it]. */
const CASES: [ValueKind, string, string, unknown][] = [
  ['int', 'int4', '-2147483648', -2147483648],
  ['float', 'float8', '1.5e-7', 1.5e-7],
  ['float', 'float8', '-3.25', -3.25],
  ['money', 'int8', '9007199254740991', 9007199254740991n],
  ['money', 'int8', '-42', -42n],
  ['decimal', 'numeric', '12.50', new Prisma.Decimal('12.50')],
  ['decimal', 'numeric(20,4)', '1000', new Prisma.Decimal('1000.0000')],
  ['bool', 'bool', 'false', false],
  ['string', 'text', 'é "quoted" \\ 😀', 'é "quoted" \\ 😀'],
  ['uuid', 'text', '0b7e2a1c-7a62-4d5b-9c1e-3f0a2b4c5d6e', '0b7e2a1c-7a62-4d5b-9c1e-3f0a2b4c5d6e'],
  ['date', 'date', '0001-01-01', new Date('0001-01-01T00:00:00.000Z')],
  ['date', 'date', '0099-12-31', new Date('0099-12-31T00:00:00.000Z')],
  ['datetime', 'timestamptz', '0050-06-15T12:00:00.000Z', new Date('0050-06-15T12:00:00.000Z')],
  ['date', 'date', '2024-02-29', new Date('2024-02-29T00:00:00.000Z')],
  ['datetime', 'timestamptz', '2026-11-21T09:30:00.123Z', new Date('2026-11-21T09:30:00.123Z')],
  ['datetime', 'timestamp(3) with time zone', '9999-12-31T23:59:59.999Z', new Date('9999-12-31T23:59:59.999Z')],
];

test.each(CASES)('%s (%s %s): PostgreSQL writes the JSON the scalar serializes, and the cursor is the same', async (kind, type, stored, prismaValue) => {
  const codec = CODECS[kind];
  const column = `$1::${type}`;
  const [row] = await db.sql.query<{ j: string; s: unknown }>(
    `SELECT (SELECT row_to_json(o) FROM (SELECT ${codec.jsonSql(column)} AS v) o)::text AS j, ${codec.sortValueSql(column)} AS s`,
    [stored],
  );
  expect(JSON.parse(row!.j)).toEqual({ v: codec.serialize(prismaValue) });
  // The same text too, but for a float with an exponent, which PostgreSQL writes as 1.5e-07 (the same number).
  if (!(kind === 'float' && /e/.test(stored))) expect(row!.j).toBe(JSON.stringify({ v: codec.serialize(prismaValue) }));
  const cursor = codec.toCursor(prismaValue);
  expect(codec.toCursor(row!.s)).toEqual(cursor);
  // What a cursor carries comes back as a value the keyset condition can compare, and only that.
  expect(codec.fromCursor(JSON.parse(JSON.stringify(cursor)))).not.toBe(NOT_OURS);
  expect(codec.fromCursor({ [kind]: cursor })).toBe(NOT_OURS);
});
