import { z } from 'zod';
import { isRoundType } from '../../vocabulary.ts';
import { calendarDate, entityRef, ignored, money, recordId, slug, text, timestamp } from './common.ts';

const withEntity = <T extends { entity_id?: number | undefined; entity?: unknown }>(record: T) =>
  record.entity_id !== undefined || record.entity !== undefined;
const entityRequired = { message: 'required (entity_id or entity.id)', path: ['entity_id'] };

const roundInvestor = z.strictObject({ id: recordId, name: ignored, is_lead: z.boolean().default(false) });

export const transactionSchema = z
  .strictObject({
    id: recordId,
    slug,
    entity: entityRef.optional(),
    entity_id: recordId.optional(),
    round_type: z.string().refine(isRoundType, 'expected a round type (seed, series_a, ... see docs/import-format.md)'),
    amount_usd: money,
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code such as USD')
      .default('USD'),
    date: calendarDate,
    valuation_usd: money,
    investors: z
      .array(roundInvestor)
      .default([])
      .refine((list) => new Set(list.map((i) => i.id)).size === list.length, 'an investor is listed twice'),
    source_url: text,
    created_at: timestamp,
  })
  .refine(withEntity, entityRequired);

export type TransactionRecord = z.output<typeof transactionSchema>;

export const valuationSchema = z
  .strictObject({
    id: recordId,
    slug,
    entity: entityRef.optional(),
    entity_id: recordId.optional(),
    valuation_usd: money.refine((value) => value !== null, 'required'),
    date: calendarDate,
    source: text,
    transaction_id: recordId.nullish().transform((value) => value ?? null),
  })
  .refine(withEntity, entityRequired);

export type ValuationRecord = z.output<typeof valuationSchema>;
