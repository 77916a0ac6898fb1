import { z } from 'zod';
import { GENDERS } from '../../vocabulary.ts';
import { ignored, optionalInt, recordId, requiredText, slug, tagRef, text, timestamp, uuid, year } from './common.ts';

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

export const founderSchema = z.strictObject({
  id: recordId,
  uuid,
  slug,
  name: requiredText,
  tagline: text,
  image: text,
  platform_url: text,
  gender: z
    .enum(GENDERS)
    .nullish()
    .transform((value) => value ?? ''),
  is_serial_founder: z.boolean().default(false),
  is_super_founder: z.boolean().default(false),
  is_promising_founder: z.boolean().default(false),
  is_strong_founder: z.boolean().default(false),
  launch_year: optionalInt,
  hq_country: text,
  hq_city: text,
  created_at: timestamp,
  updated_at: timestamp,
  tags: z.array(tagRef).default([]),
  education: z.array(education).default([]),
  companies: z
    .array(company)
    .default([])
    .refine((list) => new Set(list.map((c) => c.entity_id)).size === list.length, 'an entity is listed twice'),
  backgrounds: z.array(background).default([]),
});

export type FounderRecord = z.output<typeof founderSchema>;
