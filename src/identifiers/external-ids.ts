/**
 * External ids: an entity's identifiers in other systems, `{source, id}`. The source is a short
 * lower-case word (`crunchbase`, `linkedin`, `pitchbook`, `wikidata`, `lei`, `gb_company_number`...,
 * docs/finding-companies.md lists the conventions); the id is the other system's text, compared exactly.
 */
export interface ExternalId {
  source: string;
  id: string;
}

export const EXTERNAL_ID_SOURCE = /^[a-z][a-z0-9_]{0,39}$/;
export const EXTERNAL_ID_MAX_LENGTH = 200;

/** Why `id` cannot be stored or looked up, or undefined when it can. */
export function externalIdProblem(id: ExternalId): string | undefined {
  if (!EXTERNAL_ID_SOURCE.test(id.source)) return `source must be a lower-case word (a-z, 0-9, _; at most 40 characters), found '${id.source.slice(0, 50)}'`;
  if (id.id.length === 0 || id.id.length > EXTERNAL_ID_MAX_LENGTH || id.id.trim() !== id.id) {
    return `id must be 1..${EXTERNAL_ID_MAX_LENGTH} characters without surrounding spaces`;
  }
  return undefined;
}

/** `crunchbase:airbnb` → `{source: 'crunchbase', id: 'airbnb'}` (the id may hold colons), or undefined. */
export function parseExternalIdRef(text: string): ExternalId | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const ref = { source: text.slice(0, colon).trim().toLowerCase(), id: text.slice(colon + 1).trim() };
  return externalIdProblem(ref) ? undefined : ref;
}
