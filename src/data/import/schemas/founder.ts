import { z } from 'zod';
import { GENDERS } from '../../vocabulary.ts';
import { columnFields } from './columns.ts';
import { ignored, recordId, requiredText, slug, tagRef, text, year } from './common.ts';

const education = z.strictObject({
  university_id: recordId,
  university_name: ignored,
  degree: text,
  year_start: year,
  year_end: year,
  majors: z.array(z.string()).nullish().transform((value) => value ?? []),
});

const company = z.strictObject({
  entity_id: recordId,
  entity_name: ignored,
  is_founder: z.boolean().default(true),
  is_past: z.boolean().default(false),
  raw_title: text,
  year_start: year,
  year_end: year,
});

/** A background is matched by id when it exists, else by name, and created when missing. */
const background = z.strictObject({ id: recordId.optional(), name: requiredText });
export type BackgroundRef = z.output<typeof background>;

/** Every column of a founder as its type says (columns.ts; its country's location id the writer derives), and what is about a field. */
export const founderSchema = z.strictObject({
  ...columnFields('Founder', ['location_country_id']),
  slug,
  gender: z
    .enum(GENDERS)
    .nullish()
    .transform((value) => value ?? ''),
  tags: z.array(tagRef).default([]),
  education: z.array(education).default([]),
  companies: z
    .array(company)
    .default([])
    .refine((list) => new Set(list.map((c) => c.entity_id)).size === list.length, 'an entity is listed twice'),
  backgrounds: z.array(background).default([]),
});

export type FounderRecord = z.output<typeof founderSchema>;
