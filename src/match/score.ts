/**
 * How a record's candidates are weighed (docs/finding-companies.md, "Matching a CRM export"): each
 * input that can be compared adds evidence when it agrees and takes some away when it disagrees;
 * the evidence e becomes a confidence 1 - exp(-e). A record is `matched` only when its best candidate
 * reaches the threshold and is clearly ahead of the next; `not_found` when no candidate reaches the
 * floor; otherwise `ambiguous`.
 */
import { canonicalCountryName } from '../data/countries.ts';
import type { MatchRecord } from './input.ts';
import type { CandidateRow } from './statement.ts';

/** A candidate needs this confidence to be `matched` (min_confidence only raises it). */
export const MATCH_THRESHOLD = 0.6;
/** ...and this lead over the next candidate. */
export const MATCH_MARGIN = 0.15;
/** Candidates below this are no candidates: a record with none is `not_found`. */
export const CANDIDATE_FLOOR = 0.25;
export const MAX_ALTERNATIVES = 5;

/** Evidence for (+) and against (-) a candidate, per input. */
export const EVIDENCE = {
  externalId: { agrees: 3.5, disagrees: -2.5 },
  website: { agrees: 2.3, disagrees: -1.5 },
  /** A name the same after normalisation; a similar one scales `similar` by how similar (from 0.5 up). */
  name: { same: 1.6, similar: 1.6, disagrees: -1.0 },
  country: { agrees: 0.7, disagrees: -1.2 },
  city: { agrees: 0.4, disagrees: -0.4 },
  launchYear: { agrees: 0.4, disagrees: -0.5 },
} as const;

export interface Reason {
  field: string;
  agrees: boolean;
  detail: string;
}

export interface Candidate {
  id: number;
  name: string;
  website: string;
  hq_country: string;
  confidence: number;
  reasons: Reason[];
}

export interface MatchResult {
  status: 'matched' | 'ambiguous' | 'not_found';
  candidate: Candidate | null;
  alternatives: Candidate[];
  metadata: unknown;
}

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const country = (text: string) => fold(canonicalCountryName(text) ?? text);

function weigh(record: MatchRecord, row: CandidateRow): { evidence: number; reasons: Reason[] } {
  const reasons: Reason[] = [];
  let evidence = 0;
  const note = (field: string, agrees: boolean, detail: string, weight: number) => {
    reasons.push({ field, agrees, detail });
    evidence += weight;
  };
  if (record.external_id && row.source_ids) {
    const { source, id } = record.external_id;
    if (row.source_ids.includes(id)) note('external_id', true, `same ${source} id ${id}`, EVIDENCE.externalId.agrees);
    else if (row.source_ids.length) note('external_id', false, `its ${source} id is ${row.source_ids.join(', ')}`, EVIDENCE.externalId.disagrees);
  }
  if (record.domain && row.website_domain) {
    if (row.website_domain === record.domain) note('website', true, `same domain ${record.domain}`, EVIDENCE.website.agrees);
    else note('website', false, `its domain is ${row.website_domain}`, EVIDENCE.website.disagrees);
  }
  if (record.name) {
    if (row.same_name) note('name', true, `same name once case, accents, punctuation and legal form are ignored`, EVIDENCE.name.same);
    else if (row.name_score >= 0.5) {
      note('name', true, `similar name (${row.name_score.toFixed(2)})`, EVIDENCE.name.similar * ((row.name_score - 0.5) / 0.5));
    } else note('name', false, `different name (similarity ${row.name_score.toFixed(2)})`, EVIDENCE.name.disagrees);
  }
  if (record.hq_country && row.hq_country) {
    const agrees = country(record.hq_country) === country(row.hq_country);
    note('hq_country', agrees, agrees ? `both in ${row.hq_country}` : `it is in ${row.hq_country}`, agrees ? EVIDENCE.country.agrees : EVIDENCE.country.disagrees);
  }
  if (record.hq_city && row.hq_city) {
    const agrees = fold(record.hq_city) === fold(row.hq_city);
    note('hq_city', agrees, agrees ? `both in ${row.hq_city}` : `it is in ${row.hq_city}`, agrees ? EVIDENCE.city.agrees : EVIDENCE.city.disagrees);
  }
  if (record.launch_year !== null && row.launch_year !== null) {
    const agrees = Math.abs(record.launch_year - row.launch_year) <= 1;
    note('launch_year', agrees, agrees ? `launched ${row.launch_year}` : `launched ${row.launch_year}`, agrees ? EVIDENCE.launchYear.agrees : EVIDENCE.launchYear.disagrees);
  }
  return { evidence, reasons };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** A record's answer from its candidate rows; `minConfidence` raises the threshold of `matched`. */
export function decide(record: MatchRecord, rows: readonly CandidateRow[], minConfidence: number | null): MatchResult {
  const candidates = rows
    .map((row): Candidate => {
      const { evidence, reasons } = weigh(record, row);
      return { id: row.id, name: row.name, website: row.website, hq_country: row.hq_country, confidence: round(1 - Math.exp(-Math.max(0, evidence))), reasons };
    })
    .filter((candidate) => candidate.confidence >= CANDIDATE_FLOOR)
    .sort((a, b) => b.confidence - a.confidence || a.id - b.id);
  const [best, ...rest] = candidates;
  if (!best) return { status: 'not_found', candidate: null, alternatives: [], metadata: record.metadata };
  const threshold = Math.max(MATCH_THRESHOLD, minConfidence ?? 0);
  const lead = best.confidence - (rest[0]?.confidence ?? 0);
  const status = best.confidence >= threshold && lead >= MATCH_MARGIN - 1e-9 ? 'matched' : 'ambiguous';
  return { status, candidate: best, alternatives: rest.slice(0, MAX_ALTERNATIVES), metadata: record.metadata };
}
