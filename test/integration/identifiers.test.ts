/**
 * Identifiers a data team joins on (docs/finding-companies.md, "Identifiers"): an entity's website and
 * external ids come in through the importer, out through REST (compiled and not), GraphQL and CSV,
 * filter as normalised domains and `<source>:<id>`, and their changes reach the changes feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../src/data/import/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { FIXTURE_DIR, fixtureCopy, removeScratchDirs, replaceLine } from '../fixtures/import/helpers.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await importDirectory(app.db, FIXTURE_DIR);
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await removeScratchDirs();
});

async function ids(filter: string): Promise<number[]> {
  const response = await auth.fetch(`/api/entities?filter=${encodeURIComponent(filter)}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: { id: number }[] }).data.map((entity) => entity.id);
}

describe('entity responses', () => {
  it('carry website and external_ids on REST, by id and in lists', async () => {
    const one = ((await (await auth.fetch('/api/entities/1')).json()) as { data: Record<string, unknown> }).data;
    expect(one.website).toBe('https://www.Acme-Robotics.example.com/about?utm_source=crm');
    expect(one.external_ids).toEqual([
      { source: 'crunchbase', id: 'acme-robotics' },
      { source: 'wikidata', id: 'Q4674434' },
    ]);
    const list = (await (await auth.fetch('/api/entities?limit=500')).json()) as { data: Record<string, unknown>[] };
    expect(list.data.find((entity) => entity.id === 1)).toMatchObject({ website: one.website, external_ids: one.external_ids });
    // Unknown website: "", no ids: [].
    expect(list.data.find((entity) => entity.id === 3)).toMatchObject({ website: '', external_ids: [] });
  });

  it('carry them on GraphQL', async () => {
    const { body } = await auth.graphql('{ entity(id: 2) { website external_ids { source id } } }');
    expect(body.data).toEqual({ entity: { website: 'globex.co.uk', external_ids: [] } });
  });

  it('carry them in CSV', async () => {
    const response = await auth.fetch('/api/entities?format=csv&fields=name,website&filter=id:2');
    expect(await response.text()).toContain('globex.co.uk');
  });
});

describe('filters', () => {
  it('compare websites as normalised domains', async () => {
    for (const spelling of ['acme-robotics.example.com', 'https://ACME-ROBOTICS.example.com/', 'http://www.acme-robotics.example.com/x?y=1', 'sales@acme-robotics.example.com']) {
      expect(await ids(`website[eq]:"${spelling}"`), spelling).toEqual([1]);
    }
    expect(await ids('website[in_any]:globex.co.uk|acme-robotics.example.com')).toEqual([1, 2]);
    expect(await ids('website[contains]:GLOBEX')).toEqual([2]);
    expect(await ids('and(website[neq]:globex.co.uk,id[lte]:2)')).toEqual([1]);
  });

  it('find an entity by external id', async () => {
    expect(await ids('external_id[eq]:crunchbase:acme-robotics')).toEqual([1]);
    expect(await ids('external_id[eq]:wikidata:Q4674434')).toEqual([1]);
    expect(await ids('external_id[in_any]:wikidata:Q1|crunchbase:acme-robotics')).toEqual([1]);
    expect(await ids('external_id[eq]:crunchbase:nobody')).toEqual([]);
  });

  it('refuse values that are no domain or no <source>:<id>', async () => {
    for (const filter of ['website[eq]:"http://"', 'external_id[eq]:acme', 'external_id[eq]:"Bad Source:x"']) {
      const response = await auth.fetch(`/api/entities?filter=${encodeURIComponent(filter)}`);
      expect(response.status, filter).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FILTER_VALIDATION_ERROR');
    }
    const unsupported = await auth.fetch(`/api/entities?filter=${encodeURIComponent('website[gt]:a.com')}`);
    expect(((await unsupported.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_OPERATOR');
  });

  it('are described by GET /api/filters/entities', async () => {
    const body = (await (await auth.fetch('/api/filters/entities')).json()) as { data: { name: string; type: string; operators: string[] }[] };
    expect(body.data.find((field) => field.name === 'website')).toMatchObject({ type: 'string', operators: ['eq', 'neq', 'contains', 'in_any'] });
    expect(body.data.find((field) => field.name === 'external_id')).toMatchObject({ type: 'external_id', operators: ['eq', 'in_any'] });
  });
});

describe('the importer', () => {
  it('refuses a website that names no domain and a malformed external id, naming the line', async () => {
    const dir = await fixtureCopy({
      'entities.jsonl': (text) => replaceLine(text, 3, JSON.stringify({ id: 3, type: 'company', name: 'Initech', website: 'not a website' })),
    });
    await expect(importDirectory(app.db, dir)).rejects.toThrow(/website/);
    const badId = await fixtureCopy({
      'entities.jsonl': (text) => replaceLine(text, 3, JSON.stringify({ id: 3, type: 'company', name: 'Initech', external_ids: [{ source: 'Crunch Base', id: 'x' }] })),
    });
    await expect(importDirectory(app.db, badId)).rejects.toThrow(/source/);
  });
});

describe('the changes feed', () => {
  it('names website and external_ids among the changed fields', async () => {
    const since = ((await (await auth.fetch('/api/changes?since=now')).json()) as { page: { next_cursor: string } }).page.next_cursor;
    const dir = await fixtureCopy({
      'entities.jsonl': (text) =>
        replaceLine(
          text,
          2,
          JSON.stringify({ id: 2, uuid: '0b7e3c1e-8f4a-4d6e-9c2b-1a2b3c4d5e6f', slug: 'globex', type: 'company', name: 'Globex', launch_year: 2012,
            hq_country: 'United Kingdom', hq_city: 'London', lat: 51.5, lon: -0.12, tags: [{ name: 'Fintech', type: 'industry' }],
            website: 'https://globex.com', external_ids: [{ source: 'crunchbase', id: 'globex' }] }),
        ),
    });
    await importDirectory(app.db, dir);
    const changes = (await (await auth.fetch(`/api/changes?since=${since}&types=entity`)).json()) as {
      data: { object_id: number; changed_fields: string[] }[];
    };
    const globex = changes.data.filter((change) => change.object_id === 2).flatMap((change) => change.changed_fields);
    expect(globex).toEqual(expect.arrayContaining(['website', 'external_ids']));
    expect(globex).not.toContain('website_domain');
    expect(await ids('website[eq]:globex.com')).toEqual([2]);
    expect(await ids('external_id[eq]:crunchbase:globex')).toEqual([2]);
  });
});
