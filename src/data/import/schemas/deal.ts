import { z } from 'zod';
import { isRoundType } from '../../vocabulary.ts';
import { columnFields } from './columns.ts';
import { entityRef, ignored, recordId, slug } from './common.ts';

const withEntity = <T extends { entity_id?: number | undefined; entity?: unknown }>(record: T) =>
  record.entity_id !== undefined || record.entity !== undefined;
const entityRequired = { message: 'required (entity_id or entity.id)', path: ['entity_id'] };

const roundInvestor = z.strictObject({ id: recordId, name: ignored, is_lead: z.boolean().default(false) });

/** A record names its entity by `entity_id`, or as the API renders it, `entity: {id, name}`. */
const ofEntity = { entity: entityRef.optional(), entity_id: recordId.optional() };

export const transactionSchema = z
  .strictObject({
    ...columnFields('FundingRound'),
    slug,
    ...ofEntity,
    round_type: z.string().refine(isRoundType, 'expected a round type (seed, series_a, ... see docs/import-format.md)'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code such as USD')
      .default('USD'),
    investors: z
      .array(roundInvestor)
      .default([])
      .refine((list) => new Set(list.map((i) => i.id)).size === list.length, 'an investor is listed twice'),
  })
  .refine(withEntity, entityRequired);

export type TransactionRecord = z.output<typeof transactionSchema>;

export const valuationSchema = z
  .strictObject({
    ...columnFields('Valuation'),
    slug,
    ...ofEntity,
    transaction_id: recordId.nullish().transform((value) => value ?? null),
  })
  .refine(withEntity, entityRequired);

export type ValuationRecord = z.output<typeof valuationSchema>;
