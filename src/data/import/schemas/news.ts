import { z } from 'zod';
import { ARTICLE_TYPES, MENTION_ROLES } from '../../vocabulary.ts';
import { columnFields } from './columns.ts';
import { ignored, recordId, text } from './common.ts';

const mention = z.strictObject({
  id: recordId,
  name: ignored,
  hq_country: ignored,
  mention_role: z.enum(MENTION_ROLES).default('mentioned'),
  is_primary: z.boolean().default(false),
  sector: text,
});

/** Every column of an article as its type says (columns.ts), and what is about a field. */
export const newsSchema = z.strictObject({
  ...columnFields('NewsArticle'),
  url: z.url({ protocol: /^https?$/ }),
  article_type: z
    .enum(ARTICLE_TYPES)
    .nullish()
    .transform((value) => value ?? ''),
  language: z
    .string()
    .min(2)
    .nullish()
    .transform((value) => value ?? 'en'),
  entities: z
    .array(mention)
    .default([])
    .refine((list) => new Set(list.map((m) => m.id)).size === list.length, 'an entity is listed twice'),
});

export type NewsRecord = z.output<typeof newsSchema>;
