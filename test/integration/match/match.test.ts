/**
 * POST /api/match and the `match` field on the demo data set: the spellings a CRM holds of a website
 * and a name find the company; names not in the data are not_found, never a wrong match; two
 * companies of one name are ambiguous until a country tells them apart; a platform's domain is no
 * company's.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

interface Candidate { id: number; name: string; confidence: number; reasons: { field: string; agrees: boolean; detail: string }[] }
interface Result { status: string; candidate: Candidate | null; alternatives: Candidate[]; metadata: unknown }

let app: TestApp;
let auth: TestCredentials;
let scratch: string;

beforeAll(async () => {
  app = await startTestApp({ demo: true });
  // Two companies of one made-up name, in two countries.
  scratch = await mkdtemp(join(tmpdir(), 'vda-match-'));
  const twins = [
    { id: 900001, type: 'company', name: 'Zephyrine Analytics', hq_country: 'Germany', hq_city: 'Berlin' },
    { id: 900002, type: 'company', name: 'Zephyrine Analytics GmbH', hq_country: 'France', hq_city: 'Paris' },
  ];
  await writeFile(join(scratch, 'entities.jsonl'), twins.map((twin) => JSON.stringify(twin)).join('\n'));
  await importDirectory(app.db, scratch);
  auth = await createApiKeyAndToken(app);
}, 300_000);

afterAll(async () => {
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function match(records: unknown[], extra: Record<string, unknown> = {}): Promise<Result[]> {
  const response = await auth.fetch('/api/match', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records, ...extra }) });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: Result[] }).data;
}

const AIRBNB = 572;
const STRIPE = 14759;

describe('POST /api/match on the demo data', () => {
  it('finds a company by every spelling of its website', async () => {
    const spellings = ['airbnb.com', 'www.airbnb.com', 'https://www.airbnb.com/rooms/1?utm_source=crm', 'HTTP://AIRBNB.COM:443/', 'airbnb.com.', 'host@airbnb.com'];
    const results = await match(spellings.map((website) => ({ website })));
    for (const [index, result] of results.entries()) {
      expect(result.status, spellings[index]).toBe('matched');
      expect(result.candidate!.id).toBe(AIRBNB);
      expect(result.candidate!.reasons).toContainEqual({ field: 'website', agrees: true, detail: expect.stringMatching(/^same domain airbnb\.com \(weight \+\d/) });
    }
  });

  it('forgives legal forms, case, accents, punctuation and a typo in names', async () => {
    const names = ['Airbnb, Inc.', 'AIRBNB', 'airbnb ltd', 'Airbnb GmbH', 'Airbnbb', 'Stripe Inc'];
    const results = await match(names.map((name) => ({ name, hq_country: 'United States' })));
    expect(results.map((result) => [result.status, result.candidate?.id])).toEqual([
      ['matched', AIRBNB], ['matched', AIRBNB], ['matched', AIRBNB], ['matched', AIRBNB], ['matched', AIRBNB], ['matched', STRIPE],
    ]);
    const [accented, plain] = await match([{ name: 'MiaSole' }, { name: 'MIASOLÉ INC.' }]);
    expect(accented!.candidate?.name).toBe('MiaSolé');
    expect(plain!.candidate?.name).toBe('MiaSolé');
    expect(accented!.status).toBe('matched');
  });

  it('matches by external id and echoes metadata unchanged', async () => {
    const metadata = { crm_id: 'A-17', owner: { name: 'Jo' }, tags: [1, 'x', null] };
    const [byString, byObject] = await match([
      { external_id: 'crunchbase:stripe', metadata },
      { external_id: { source: 'crunchbase', id: 'stripe' } },
    ]);
    expect(byString).toMatchObject({ status: 'matched', candidate: { id: STRIPE }, metadata });
    expect(byObject).toMatchObject({ status: 'matched', candidate: { id: STRIPE }, metadata: null });
    expect(byString!.candidate!.confidence).toBeGreaterThan(0.9);
  });

  it('says not_found for names that are not in the data, never a wrong match', async () => {
    const results = await match([{ name: 'Quorvantix Biolabs' }, { name: 'Blorptastic Widgets Ltd' }, { website: 'no-such-company-here.example' }]);
    expect(results.map((result) => result.status)).toEqual(['not_found', 'not_found', 'not_found']);
    expect(results[0]!.candidate).toBeNull();
  });

  it('calls two companies of one name ambiguous, and tells them apart by country', async () => {
    const [unsure, german, french] = await match([
      { name: 'Zephyrine Analytics' },
      { name: 'Zephyrine Analytics', hq_country: 'Germany' },
      { name: 'zephyrine analytics', hq_country: 'France' },
    ]);
    expect(unsure!.status).toBe('ambiguous');
    expect([unsure!.candidate!.id, unsure!.alternatives[0]!.id].sort()).toEqual([900001, 900002]);
    expect(unsure!.candidate!.confidence).toBe(unsure!.alternatives[0]!.confidence);
    expect(unsure!.candidate!.confidence).toBeLessThanOrEqual(0.5);
    expect(german).toMatchObject({ status: 'matched', candidate: { id: 900001 } });
    expect(french).toMatchObject({ status: 'matched', candidate: { id: 900002 } });
    // The other one is far behind: a country that disagrees weighs much against it.
    const [germanOnly] = await match([{ name: 'Zephyrine Analytics', hq_country: 'Germany' }], { min_confidence: 0 });
    expect(germanOnly!.alternatives.map((other) => other.id)).not.toContain(900002);
  });

  it('lowers no bar but raises it with min_confidence', async () => {
    const [loose] = await match([{ name: 'Airbnbb', hq_country: 'United States' }]);
    expect(loose!.status).toBe('matched');
    expect(loose!.candidate!.confidence).toBeLessThan(0.99);
    const [strict] = await match([{ name: 'Airbnbb', hq_country: 'United States' }], { min_confidence: 0.99 });
    expect(strict!.status).toBe('ambiguous');
    expect(strict!.candidate!.id).toBe(AIRBNB);
    const [lower] = await match([{ name: 'Zephyrine Analytics' }], { min_confidence: 0.1 });
    expect(lower!.status).toBe('ambiguous');
  });

  it('takes a platform’s domain for a profile there, never a company’s own domain', async () => {
    // Tracks.by's website is a page on facebook.com; Nowmov's and TapIn's are twitter.com profiles.
    const results = await match([{ website: 'https://www.facebook.com' }, { website: 'twitter.com/nowbox' }, { name: 'Tracks.by', website: 'https://www.facebook.com/somebody' }]);
    expect(results.map((result) => result.status)).toEqual(['not_found', 'not_found', 'matched']);
    expect(results[2]!.candidate!.reasons.map((reason) => reason.field)).toEqual(['name']);
  });

  it('weighs a shared word by how rare it is: a common one does not make a match', async () => {
    const results = await match([
      { name: 'Vexulozor Labs', hq_country: 'United States' },
      { name: 'Ulokeshplim Systems', hq_country: 'United States' },
      { name: 'Cotrex Healthcare', hq_country: 'United States' },
      { name: 'SclaeArc', hq_country: 'United States' },
    ]);
    expect(results.map((result) => result.status)).toEqual(['not_found', 'not_found', 'matched', 'matched']);
    expect(results.slice(2).map((result) => result.candidate!.name)).toEqual(['Cortex Healthcare', 'ScaleArc']);
  });

  it('refuses bad records with a detail each, at body.records[i]', async () => {
    const response = await auth.fetch('/api/match', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ records: [{ name: 'Airbnb' }, { hq_country: 'Germany' }, { website: 'not a site' }, { nme: 'x' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.map((detail) => detail.path)).toEqual(['body.records[1]', 'body.records[2].website', 'body.records[3].nme', 'body.records[3]']);
    for (const records of [[], Array.from({ length: 1001 }, () => ({ name: 'x' }))]) {
      const tooMany = await auth.fetch('/api/match', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records }) });
      expect(tooMany.status).toBe(400);
    }
  });

  it('needs read:entities', async () => {
    const other = await createApiKeyAndToken(app, { permissions: ['read:news'] });
    const response = await other.fetch('/api/match', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ name: 'Airbnb' }] }) });
    expect(response.status).toBe(403);
  });

  it('answers the same on GraphQL', async () => {
    const { body } = await auth.graphql(
      'query($r: [JSON!]!) { match(records: $r) { data { status candidate { id confidence reasons { field agrees } } metadata } } }',
      { r: [{ website: 'stripe.com', metadata: { row: 2 } }] },
    );
    expect(body.data).toMatchObject({ match: { data: [{ status: 'matched', candidate: { id: STRIPE }, metadata: { row: 2 } }] } });
  });
});
