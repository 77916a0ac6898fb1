/** Field types shared by the record schemas of the import format (docs/import-format.md). */
import { z } from 'zod';
import { TAG_TYPES } from '../../vocabulary.ts';

const INT4_MAX = 2_147_483_647;

/** An integer whose type error reads "expected integer" (zod reports a non-number as "expected number"). */
export const integer = () =>
  z.int({ error: (issue) => (issue.code === 'invalid_type' ? 'expected integer' : undefined) });

export const recordId = integer().min(1).max(INT4_MAX);

/** Accepted and dropped: fields of API responses that the importer derives itself. */
export const ignored = z.unknown().optional();

/** Free text; null or absent is the empty string, as the columns store it. */
export const text = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

export const requiredText = z.string().trim().min(1, 'must not be empty');

export const optionalInt = integer()
  .min(-INT4_MAX)
  .max(INT4_MAX)
  .nullish()
  .transform((value) => value ?? null);

export const year = integer()
  .min(1000)
  .max(2999)
  .nullish()
  .transform((value) => value ?? null);

export const optionalNumber = z
  .number()
  .nullish()
  .transform((value) => value ?? null);

/** Whole US dollars as a JSON integer or, above 2^53, a string of digits; kept as a string for BIGINT. */
export const wholeDollars = z
  .union([z.int().min(0), z.string().regex(/^\d{1,18}$/, 'expected a whole number of US dollars')])
  .transform((value) => String(value));

export const money = wholeDollars.nullish().transform((value) => value ?? null);

/** A decimal amount (the API serves them as strings): numbers and numeric strings both work. */
export const decimalText = z
  .union([z.number().min(0), z.string().regex(/^\d{1,18}(\.\d{1,2})?$/, 'expected an amount such as 1500000 or "1500000.50"')])
  .transform((value) => String(value));

/** An ISO 8601 date-time with zone; a bare date means midnight UTC. */
export const dateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

export const timestamp = dateTime.nullish().transform((value) => value ?? null);

/** A calendar date; a date-time (as API responses render dates) is cut to its date. */
export const calendarDate = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .transform((value) => value.slice(0, 10));

export const uuid = z
  .guid()
  .optional()
  .transform((value) => value?.toLowerCase());

export const slug = z.string().trim().min(1).max(200).optional();

/** A tag is matched by id when it has one that exists, else by (type, name); missing tags are created. */
export const tagRef = z.strictObject({
  id: recordId.optional(),
  name: requiredText,
  type: z.enum(TAG_TYPES),
});
export type TagRef = z.output<typeof tagRef>;

/** `{entity: {id, name}}` as the API renders it, or a plain `entity_id`. */
export const entityRef = z.strictObject({ id: recordId, name: ignored });

export function entityIdOf(record: { entity_id?: number | undefined; entity?: { id: number } | undefined }) {
  return record.entity_id ?? record.entity?.id;
}
