// The field registry of every filterable resource. Ecosystems filter entities, so they use `entities`.
import { ENTITY_FIELDS } from './fields/entities.ts';
import { FOUNDER_FIELDS } from './fields/founders.ts';
import { INVESTOR_FIELDS } from './fields/investors.ts';
import { NEWS_FIELDS } from './fields/news.ts';
import { TRANSACTION_FIELDS } from './fields/transactions.ts';
import type { Resource, ResourceRegistry } from './fields/types.ts';
import { RESOURCES } from './fields/types.ts';
import { VALUATION_FIELDS } from './fields/valuations.ts';

export * from './fields/types.ts';

const REGISTRIES: Readonly<Record<Resource, ResourceRegistry>> = Object.freeze({
  entities: ENTITY_FIELDS,
  founders: FOUNDER_FIELDS,
  investors: INVESTOR_FIELDS,
  transactions: TRANSACTION_FIELDS,
  valuations: VALUATION_FIELDS,
  news: NEWS_FIELDS,
});

export function fieldRegistry(resource: Resource): ResourceRegistry {
  return REGISTRIES[resource];
}

export function isResource(value: string): value is Resource {
  return (RESOURCES as readonly string[]).includes(value);
}
