/**
 * /mcp driven by the SDK's own client over real HTTP: every tool is listed with its schemas and called,
 * its arguments and structured answer checked against the tool's JSON Schemas (Ajv) and its answer
 * against the REST answer to the same request; errors come back as tool errors a model can act on.
 */
import { Ajv } from 'ajv';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../helpers/built-schema.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { RESOURCES } from '../../../src/filter/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { callTool, connectMcp, errorText } from './support.ts';

const TOOLS = [
  'search_entities', 'search_founders', 'search_investors', 'search_transactions', 'search_news', 'search', 'match_companies',
  'get_record', 'similar_companies', 'describe_filters', 'lookup_values', 'validate_filter', 'aggregate', 'list_ecosystems', 'ecosystem_entities',
];

let app: TestApp;
let admin: TestCredentials;
let client: Client;
let tools: Map<string, Tool>;
const ajv = new Ajv({ strict: false });
let ecosystemSlug: string;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 120 });
  admin = await createApiKeyAndToken(app);
  ecosystemSlug = `eco-${Date.now()}`;
  const created = await admin.fetch('/api/ecosystems', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug: ecosystemSlug, name: 'Recent companies', filter: 'launch_year[gte]:2000' }),
  });
  expect(created.status).toBe(201);
  client = await connectMcp(app, admin.headers);
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await app?.close();
});

async function rest(path: string, query: Record<string, string | string[]> = {}): Promise<{ status: number; body: any }> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const item of [value].flat()) params.append(name, item);
  const response = await admin.fetch(`${path}${params.size ? `?${params}` : ''}`);
  return { status: response.status, body: await response.json() };
}

/** Calls a tool with arguments its input schema accepts, and checks its answer against its output schema. */
async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const tool = tools.get(name)!;
  const validInput = ajv.compile(tool.inputSchema);
  expect(validInput(args), JSON.stringify(validInput.errors)).toBe(true);
  const result: CallToolResult = await callTool(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const validOutput = ajv.compile(tool.outputSchema!);
  expect(validOutput(result.structuredContent), JSON.stringify(validOutput.errors)).toBe(true);
  // Clients that read only text get the same answer.
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

describe('tools/list', () => {
  it('lists the curated tools, read-only, described, with input and output schemas', () => {
    expect([...tools.keys()].sort()).toEqual([...TOOLS].sort());
    for (const tool of tools.values()) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties, `${tool.name} refuses unknown arguments`).toBe(false);
      expect(tool.outputSchema?.type).toBe('object');
      ajv.compile(tool.inputSchema);
      ajv.compile(tool.outputSchema!);
    }
  });

  it('derives search inputs from the field registry: sortable fields as an enum, record fields, limit at most 50', async () => {
    const input = tools.get('search_entities')!.inputSchema as any;
    expect(input.properties.sort.items.enum).toEqual(expect.arrayContaining(['launch_year', '-launch_year', 'name']));
    expect(input.properties.limit.maximum).toBe(50);
    const { body } = await rest('/api/entities', { limit: '1' });
    expect(input.properties.fields.items.enum).toEqual(Object.keys(body.data[0]));
    const filters = (await rest('/api/filters/entities')).body.data as { name: string; operators: string[] }[];
    for (const field of filters.filter((described) => described.operators.length > 0)) expect(input.properties.filter.description).toContain(field.name);
  });
});

describe('each tool answers as REST does', () => {
  it('search_entities, with sort, fields and the cursor that continues it', async () => {
    const args = { filter: 'launch_year[gte]:1990', sort: ['-launch_year'], fields: ['name', 'launch_year'], limit: 5 };
    const first = await call('search_entities', args);
    const expected = (await rest('/api/entities', { filter: args.filter, sort: '-launch_year', fields: 'name,launch_year', limit: '5' })).body;
    expect(first.data).toEqual(expected.data);
    expect(first.data).toHaveLength(5);
    expect(first.next_cursor).toBe(expected.page.next_cursor);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await call('search_entities', { ...args, cursor: first.next_cursor });
    const expectedSecond = (await rest('/api/entities', { filter: args.filter, sort: '-launch_year', fields: 'name,launch_year', limit: '5', cursor: first.next_cursor })).body;
    expect(second.data).toEqual(expectedSecond.data);
    expect(second.data[0].id).not.toBe(first.data[0].id);
  });

  it.each(['founders', 'investors', 'transactions', 'news'])('search_%s', async (resource) => {
    const answer = await call(`search_${resource}`, { limit: 3 });
    const expected = (await rest(`/api/${resource}`, { limit: '3' })).body;
    expect(answer.data.length).toBeGreaterThan(0);
    expect(answer).toEqual({ data: expected.data, next_cursor: expected.page.next_cursor });
  });

  it.each(RESOURCES)('get_record of %s', async (resource) => {
    const id = (await rest(`/api/${resource}`, { limit: '1' })).body.data[0].id as number;
    const answer = await call('get_record', { resource, id });
    expect(answer.record).toEqual((await rest(`/api/${resource}/${id}`)).body.data);
  });

  it('match_companies: records matched as POST /api/match answers them', async () => {
    const [entity] = (await rest('/api/entities', { limit: '1', filter: 'website[neq]:""' })).body.data;
    const records = [{ website: `https://${entity.website.replace(/^https?:\/\//, '')}?utm_source=crm`, metadata: { row: 1 } }, { name: 'Qzxv Nothing Here' }];
    const answer = await call('match_companies', { records });
    expect(answer.data[0]).toMatchObject({ status: 'matched', candidate: { id: entity.id }, metadata: { row: 1 } });
    expect(answer.data[1]).toMatchObject({ status: 'not_found', candidate: null });
    // Refused as POST /api/match refuses: a record with nothing to match by, an unknown key, a confidence past 1.
    expect(errorText(await callTool(client, 'match_companies', { records: [{ hq_country: 'Germany' }] }))).toContain('needs at least one of name, website, external_id');
    expect(errorText(await callTool(client, 'match_companies', { records: [{ name: 'Acme', nme: 'Acme' }] }))).toMatch(/nme/);
    expect(errorText(await callTool(client, 'match_companies', { records: [{ name: 'Acme' }], min_confidence: 2 }))).toContain('must be a number from 0 to 1');
    expect(tools.get('match_companies')!.inputSchema).toMatchObject({ properties: { records: { minItems: 1, maxItems: 1000, items: { additionalProperties: false } } } });
  });

  it('search: the cross-kind search by name, as GET /api/search, and a kind it may not use is a tool error', async () => {
    const [entity] = (await rest('/api/entities', { limit: '1', sort: '-total_funding_usd' })).body.data;
    const typo = `${entity.name.slice(0, 2)}${entity.name[3]}${entity.name[2]}${entity.name.slice(4)}`;
    const answer = await call('search', { q: typo, types: ['entity', 'founder'], limit: 5 });
    expect(answer).toEqual({ data: (await rest('/api/search', { q: typo, types: 'entity,founder', limit: '5' })).body.data });
    expect(answer.data.map((hit: { id: number }) => hit.id)).toContain(entity.id);
    const foundersOnly = await createApiKeyAndToken(app, { permissions: ['read:founders'] });
    const narrow = await connectMcp(app, foundersOnly.headers);
    try {
      expect(errorText(await callTool(narrow, 'search', { q: 'x', types: ['entity'] }))).toContain('FORBIDDEN');
    } finally {
      await narrow.close();
    }
  });

  it('get_record of a missing id is a tool error naming NOT_FOUND', async () => {
    expect(errorText(await callTool(client, 'get_record', { resource: 'entities', id: 2_000_000_000 }))).toContain('NOT_FOUND');
  });

  it('describe_filters: the fields of GET /api/filters, and examples that validate_filter accepts', async () => {
    for (const resource of RESOURCES) {
      const answer = await call('describe_filters', { resource });
      expect(answer.fields).toEqual((await rest(`/api/filters/${resource}`)).body.data);
      expect(answer.examples.length).toBeGreaterThanOrEqual(3);
      for (const filter of answer.examples) {
        expect(await call('validate_filter', { resource, filter }), `${resource}: ${filter}`).toMatchObject({ valid: true });
      }
    }
  });

  it('lookup_values: location names to ids, as /api/filters/location/values', async () => {
    const top = (await rest('/api/filters/location/values', { limit: '1' })).body.data[0];
    const q = String(top.name).slice(0, 3);
    const answer = await call('lookup_values', { kind: 'location', q, limit: 5 });
    expect(answer.values).toEqual((await rest('/api/filters/location/values', { q, limit: '5' })).body.data);
    expect(answer.values.map((value: { id: number }) => value.id)).toContain(top.id);
  });

  it('validate_filter: a valid filter, and the position and close matches of wrong ones', async () => {
    expect(await call('validate_filter', { resource: 'entities', filter: 'launch_year[gte]:1990' })).toEqual({ valid: true, matches_any: true });
    expect(await call('validate_filter', { resource: 'entities', filter: 'launch_year[gte]:3000' })).toEqual({ valid: true, matches_any: false });
    const unknown = await call('validate_filter', { resource: 'entities', filter: 'and(is_unicorn:true, launch_yeer[gte]:2000)' });
    expect(unknown).toMatchObject({ valid: false, error: { code: 'UNKNOWN_FILTER', position: 21 } });
    expect(unknown.error.close_matches).toContain('launch_year');
    const syntax = await call('validate_filter', { resource: 'entities', filter: 'launch_year[gte:2000' });
    expect(syntax).toMatchObject({ valid: false, error: { code: 'FILTER_PARSE_ERROR', position: 15 } });
    const value = await call('validate_filter', { resource: 'entities', filter: 'launch_year[gte]:abc' });
    expect(value).toMatchObject({ valid: false, error: { code: 'FILTER_VALIDATION_ERROR', position: 17 } });
  });

  it('aggregate, paged by its cursor as by offset', async () => {
    const args = { source: 'entities', metrics: ['count'], group_by: ['launch_year'], limit: 3 };
    const first = await call('aggregate', args);
    const expected = (await rest('/api/aggregate/entities', { metric: 'count', group_by: 'launch_year', limit: '3' })).body;
    expect(first).toEqual({ data: expected.data, total: expected.page.total, next_cursor: '3', query_info: expected.query_info });
    const second = await call('aggregate', { ...args, cursor: first.next_cursor });
    expect(second.data).toEqual((await rest('/api/aggregate/entities', { metric: 'count', group_by: 'launch_year', limit: '3', offset: '3' })).body.data);
  });

  it('list_ecosystems and ecosystem_entities', async () => {
    const ecosystems = await call('list_ecosystems', { limit: 10 });
    expect(ecosystems).toEqual({ data: (await rest('/api/ecosystems', { limit: '10' })).body.data, next_cursor: null });
    expect(ecosystems.data.map((ecosystem: { slug: string }) => ecosystem.slug)).toContain(ecosystemSlug);
    const args = { ecosystem: ecosystemSlug, filter: 'launch_year[lt]:2010', sort: ['name'], limit: 4 };
    const entities = await call('ecosystem_entities', args);
    const expected = (await rest(`/api/ecosystems/${ecosystemSlug}/entities`, { filter: args.filter, sort: 'name', limit: '4' })).body;
    expect(entities).toEqual({ data: expected.data, next_cursor: expected.page.next_cursor });
    expect(entities.data.length).toBeGreaterThan(0);
  });
});

describe('errors a model can correct from', () => {
  it('a bad filter is a tool error with the code, the position and the close matches, not a protocol failure', async () => {
    const text = errorText(await callTool(client, 'search_entities', { filter: 'launch_yeer[gte]:2000' }));
    expect(text).toContain('UNKNOWN_FILTER');
    expect(text).toContain('at position 0');
    expect(text).toContain('close matches: launch_year');
    expect(text).toContain('\n- filter: Unknown filter field');
    expect(text).toContain('describe_filters');
  });

  it('an argument the schema refuses is a tool error too (limit over 50, an unknown argument)', async () => {
    expect(errorText(await callTool(client, 'search_entities', { limit: 51 }))).toMatch(/limit/);
    expect(errorText(await callTool(client, 'search_entities', { filters: 'x' }))).toMatch(/filters/);
  });
});
