import { z } from 'zod';
import { ARTICLE_TYPES, MENTION_ROLES } from '../../vocabulary.ts';
import { calendarDate, ignored, recordId, requiredText, text } from './common.ts';

const mention = z.strictObject({
  id: recordId,
  name: ignored,
  hq_country: ignored,
  mention_role: z.enum(MENTION_ROLES).default('mentioned'),
  is_primary: z.boolean().default(false),
  sector: text,
});

/** News amounts are decimals (the API serves them as strings); numbers and numeric strings both work. */
const decimalAmount = z
  .union([z.number().min(0), z.string().regex(/^\d{1,18}(\.\d{1,2})?$/, 'expected an amount such as 1500000 or "1500000.50"')])
  .nullish()
  .transform((value) => (value === null || value === undefined ? null : String(value)));

const score = z
  .number()
  .nullish()
  .transform((value) => value ?? 0);

export const newsSchema = z.strictObject({
  id: recordId,
  url: z.url({ protocol: /^https?$/ }),
  title: requiredText,
  summary: text,
  image_url: text,
  source: text,
  article_type: z
    .enum(ARTICLE_TYPES)
    .nullish()
    .transform((value) => value ?? ''),
  publish_date: z.union([z.iso.datetime({ offset: true }), z.iso.date()]),
  language: z
    .string()
    .min(2)
    .nullish()
    .transform((value) => value ?? 'en'),
  amount_usd: decimalAmount,
  round_type: text,
  deal_date: calendarDate.nullish().transform((value) => value ?? null),
  sector: text,
  hq_country: text,
  enriched_summary: text,
  relevance_score: score,
  hub_score: score,
  entities: z
    .array(mention)
    .default([])
    .refine((list) => new Set(list.map((m) => m.id)).size === list.length, 'an entity is listed twice'),
});

export type NewsRecord = z.output<typeof newsSchema>;
