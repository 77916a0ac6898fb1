/**
 * The demo data set under construction: records keyed by their source identity (a CrunchBase permalink,
 * a YC company name, ...), given sequential ids in the order sources add them, so the same sources always
 * produce the same ids, uuids and files.
 */
import { domainOf } from '../../src/identifiers/domain.ts';
import type { ExternalId } from '../../src/identifiers/external-ids.ts';
import { uuidV5, slugify } from '../../src/data/ids.ts';
import type { EntityType, TagType } from '../../src/data/vocabulary.ts';

export interface TagDraft {
  name: string;
  type: TagType;
}

export interface EntityDraft {
  id: number;
  uuid: string;
  slug: string;
  type: EntityType;
  name: string;
  is_investor?: boolean;
  tagline: string;
  image: string;
  platform_url: string;
  website: string;
  external_ids: ExternalId[];
  launch_year: number | null;
  hq_country: string;
  hq_city: string;
  tags: TagDraft[];
}

export type EntityFields = Partial<Omit<EntityDraft, 'id' | 'uuid' | 'slug' | 'tags' | 'external_ids'>> & { name: string };

/** A source's website cell as the record keeps it: as written when it names a domain, else nothing. */
export function cleanWebsite(value: string | undefined): string {
  const text = (value ?? '').trim();
  return domainOf(text) ? text : '';
}

export interface TransactionDraft {
  id: number;
  slug: string;
  entity_id: number;
  round_type: string;
  amount_usd: number | null;
  currency?: string;
  date: string;
  investors: { id: number; is_lead: boolean }[];
  source_url?: string;
}

export interface ValuationDraft {
  id: number;
  entity_id: number;
  valuation_usd: number;
  date: string;
  source: string;
  transaction_id: number;
}

export interface NewsDraft {
  id: number;
  url: string;
  title: string;
  summary: string;
  source: string;
  article_type: string;
  publish_date: string;
  amount_usd: number | null;
  round_type: string;
  deal_date: string;
  sector: string;
  hq_country: string;
  entities: { id: number; mention_role: string; is_primary: boolean; sector?: string }[];
}

export interface FounderDraft {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  gender: string;
  is_serial_founder: boolean;
  companies: { entity_id: number; is_founder: boolean }[];
}

export class Dataset {
  readonly entities: EntityDraft[] = [];
  readonly transactions: TransactionDraft[] = [];
  readonly valuations: ValuationDraft[] = [];
  readonly news: NewsDraft[] = [];
  readonly founders: FounderDraft[] = [];
  private readonly entityByKey = new Map<string, EntityDraft>();
  private readonly entitiesByName = new Map<string, EntityDraft[]>();
  private readonly usedSlugs = { entity: new Set<string>(), round: new Set<string>(), founder: new Set<string>() };
  private readonly usedUrls = new Set<string>();
  private readonly tagNames = new Map<string, string>();

  /** Sources spell one tag differently ("E-commerce", "E-Commerce"); the first spelling wins. */
  tag(name: string, type: TagType): TagDraft {
    const key = `${type}:${name.toLowerCase()}`;
    if (!this.tagNames.has(key)) this.tagNames.set(key, name);
    return { name: this.tagNames.get(key) ?? name, type };
  }

  entity(key: string): EntityDraft | undefined {
    return this.entityByKey.get(key);
  }

  /** The one entity with exactly this name (case-insensitive), if the name is not ambiguous. */
  entityNamed(name: string): EntityDraft | undefined {
    const matches = this.entitiesByName.get(name.toLowerCase()) ?? [];
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** Adds an entity, or fills the blank fields of the one already under `key`. */
  upsertEntity(key: string, preferredSlug: string, fields: EntityFields, tags: TagDraft[] = []): EntityDraft {
    const existing = this.entityByKey.get(key);
    if (existing) return this.fill(existing, fields, tags);
    const draft: EntityDraft = {
      id: this.entities.length + 1,
      uuid: uuidV5(`open-startups:${key}`),
      slug: uniqueSlug(this.usedSlugs.entity, preferredSlug || slugify(fields.name) || 'entity'),
      type: 'company',
      tagline: '',
      image: '',
      platform_url: '',
      website: '',
      launch_year: null,
      hq_country: '',
      hq_city: '',
      ...fields,
      external_ids: [],
      tags: [],
    };
    // An entity found under its CrunchBase permalink carries it as an external id.
    if (key.startsWith('crunchbase:')) this.addExternalId(draft, 'crunchbase', key.slice('crunchbase:'.length));
    addTags(draft, tags);
    this.entities.push(draft);
    this.entityByKey.set(key, draft);
    const named = this.entitiesByName.get(draft.name.toLowerCase()) ?? [];
    this.entitiesByName.set(draft.name.toLowerCase(), [...named, draft]);
    return draft;
  }

  /** Sets the entity's blank fields from `fields` and adds the tags it lacks. */
  fill(entity: EntityDraft, fields: EntityFields, tags: TagDraft[] = []): EntityDraft {
    fillBlanks(entity, fields);
    addTags(entity, tags);
    return entity;
  }

  /** Adds an id of the entity in another system, once. */
  addExternalId(entity: EntityDraft, source: string, id: string): void {
    if (!id || entity.external_ids.some((known) => known.source === source && known.id === id)) return;
    entity.external_ids.push({ source, id });
    entity.external_ids.sort((a, b) => (a.source === b.source ? (a.id < b.id ? -1 : 1) : a.source < b.source ? -1 : 1));
  }

  /** Registers `key` as another name for an entity found by other means (a name match). */
  alias(key: string, entity: EntityDraft): void {
    if (!this.entityByKey.has(key)) this.entityByKey.set(key, entity);
  }

  addTransaction(preferredSlug: string, draft: Omit<TransactionDraft, 'id' | 'slug'>): TransactionDraft {
    const transaction = { id: this.transactions.length + 1, slug: uniqueSlug(this.usedSlugs.round, preferredSlug), ...draft };
    this.transactions.push(transaction);
    for (const investor of draft.investors) this.markInvestor(investor.id);
    return transaction;
  }

  /**
   * An acquisition at a known price in US dollars values the whole company at that price on that day:
   * one valuation (source `acquisition`) per such transaction. Called once every source is added.
   */
  addAcquisitionValuations(): void {
    for (const deal of this.transactions) {
      if (deal.round_type !== 'acquisition' || deal.amount_usd === null) continue;
      this.valuations.push({
        id: this.valuations.length + 1,
        entity_id: deal.entity_id,
        valuation_usd: deal.amount_usd,
        date: deal.date,
        source: 'acquisition',
        transaction_id: deal.id,
      });
    }
  }

  markInvestor(entityId: number): void {
    const entity = this.entities[entityId - 1];
    if (entity) entity.is_investor = true;
  }

  /**
   * Adds a news article. The import needs unique URLs; some sources point several headlines at one
   * generic newsroom page, so repeats get a `#n` fragment (the page they open is the same).
   */
  addNews(draft: Omit<NewsDraft, 'id'>): NewsDraft {
    let url = draft.url;
    for (let n = 2; this.usedUrls.has(url); n += 1) url = `${draft.url}#${n}`;
    this.usedUrls.add(url);
    const article = { ...draft, id: this.news.length + 1, url };
    this.news.push(article);
    return article;
  }

  addFounder(key: string, name: string, gender: string, entityIds: number[]): FounderDraft {
    const founder: FounderDraft = {
      id: this.founders.length + 1,
      uuid: uuidV5(`open-startups:${key}`),
      slug: uniqueSlug(this.usedSlugs.founder, slugify(name) || 'founder'),
      name,
      gender,
      is_serial_founder: entityIds.length > 1,
      companies: entityIds.map((entity_id) => ({ entity_id, is_founder: true })),
    };
    this.founders.push(founder);
    return founder;
  }

}

function uniqueSlug(used: Set<string>, preferred: string): string {
  let slug = preferred;
  for (let n = 2; used.has(slug); n += 1) slug = `${preferred}-${n}`;
  used.add(slug);
  return slug;
}

function fillBlanks(entity: EntityDraft, fields: EntityFields): void {
  const target = entity as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'type' || name === 'name') continue;
    const current = target[name];
    if ((current === '' || current === null || current === undefined) && value !== '' && value !== null) target[name] = value;
  }
}

function addTags(entity: EntityDraft, tags: TagDraft[]): void {
  for (const tag of tags) {
    const known = entity.tags.some((t) => t.type === tag.type && t.name.toLowerCase() === tag.name.toLowerCase());
    if (!known) entity.tags.push(tag);
  }
}
