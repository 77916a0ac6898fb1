// Every GraphQL root field, and every type reachable from it four fields deep (records, their relations,
// list envelopes and their pages), tried with a token lacking each permission that guards it, and with
// a caller of another organisation: nothing it may not read comes back, neither rows nor counts nor cursors. The walk reads the schema, so a field or
// type added later is covered; which permission guards what is stated here from the declarations,
// with the one rule the schema cannot show by itself: a list's page describes its rows, so it is
// guarded as they are.
import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, ANY_CALLER, PERMISSIONS, rootFieldRule, type Permission } from '../../../src/auth/permissions.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ALL_PERMISSIONS, createUserToken, type GraphQLBody, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';

const schema = getSchema();
const MAX_DEPTH = 4;

type Guard = readonly string[];

interface Probe {
  /** `entities { page { total next_cursor } }` */
  query: string;
  /** Each set guards one field on the way; a token passes a set holding any one of its permissions. */
  guards: readonly Guard[];
}

/** The access a type declares, with a list envelope guarded as the records in its `data`. */
function declaredAccess(type: GraphQLNamedType): { anyOf: Guard; summary: readonly string[] } | undefined {
  if (!isObjectType(type)) return undefined;
  const own = type.extensions?.[ACCESS] as { anyOf?: Guard; summary?: readonly string[] } | undefined;
  if (own?.anyOf) return { anyOf: own.anyOf, summary: own.summary ?? [] };
  const fields = type.getFields();
  if (fields.data && fields.page) {
    const records = declaredAccess(getNamedType(fields.data.type));
    return records && { anyOf: records.anyOf, summary: [] };
  }
  return undefined;
}

/** Required arguments of the root fields, from the fixture records; lists one record long (their fan-out stays cheap). */
function rootArguments(field: GraphQLField<unknown, unknown>, ids: Fixture): string {
  // `q` of a search is nullable so that its absence is refused after the permission check; it is needed all the same.
  const required = field.args.filter((arg) => (isNonNullType(arg.type) && arg.defaultValue === undefined) || arg.name === 'limit' || arg.name === 'q');
  const value = (name: string): string => {
    if (name === 'id' && field.name === 'ecosystem') return JSON.stringify(String(ids.ecosystem));
    if (name === 'id') return String(ids.byType[getNamedType(field.type).name] ?? 1);
    if (name === 'ecosystem') return JSON.stringify(String(ids.ecosystem));
    if (name === 'team') return String(ids.team);
    if (name === 'webhook') return String(ids.byType.Webhook);
    if (name === 'resource' || name === 'source') return '"entities"';
    if (name === 'metrics') return '["count"]';
    if (name === 'start_date') return '"2020-01-01"';
    if (name === 'end_date') return '"2020-12-31"';
    if (name === 'limit') return '1';
    if (name === 'records') return '[{name: "Company 1"}]';
    if (name === 'q') return '"Company"';
    throw new Error(`no fixture for the required argument ${field.name}(${name}); add one here`);
  };
  return required.length ? `(${required.map((arg) => `${arg.name}: ${value(arg.name)}`).join(', ')})` : '';
}

/** The permissions the root field's rule asks for with these arguments. */
function rootGuard(field: GraphQLField<unknown, unknown>): Guard {
  const rule = rootFieldRule(schema, `Query.${field.name}`);
  if (rule === undefined) throw new Error(`Query.${field.name} has no rule`);
  if (typeof rule === 'string') return [rule];
  if ('grants' in rule) return [rule.permission];
  return [rule.byValue.entities ?? rule.otherwise];
}

const wrap = (path: readonly string[], inner: string): string => path.reduceRight((selection, field) => `${field} { ${selection} }`, inner);

/**
 * Breadth first, each (type, field) once per root field: at every object, one probe for the fields its
 * access guards and one for the others (summaries, types guarded by where they are reached).
 */
function probesOf(root: GraphQLField<unknown, unknown>, ids: Fixture): Probe[] {
  const probes: Probe[] = [];
  const seen = new Set<string>();
  const head = `${root.name}${rootArguments(root, ids)}`;
  const queue: { path: string[]; type: GraphQLObjectType; guards: Guard[] }[] = [];
  const start = getNamedType(root.type);
  if (!isObjectType(start)) return [{ query: `{ ${head} }`, guards: [rootGuard(root)] }];
  queue.push({ path: [head], type: start, guards: [rootGuard(root)] });
  while (queue.length) {
    const { path, type, guards } = queue.shift()!;
    const access = declaredAccess(type);
    const guardOf = (field: string): Guard[] => (access && !access.summary.includes(field) ? [...guards, access.anyOf] : guards);
    const fields = Object.values(type.getFields());
    const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)));
    for (const summary of [false, true]) {
      const group = leaves.filter((field) => (access?.summary.includes(field.name) ?? true) === summary);
      if (group.length) probes.push({ query: `{ ${wrap(path, group.map((field) => field.name).join(' '))} }`, guards: guardOf(group[0]!.name) });
    }
    if (path.length > MAX_DEPTH) continue;
    for (const field of fields) {
      const named = getNamedType(field.type);
      const key = `${type.name}.${field.name}`;
      if (!isObjectType(named) || seen.has(key)) continue;
      seen.add(key);
      queue.push({ path: [...path, field.name], type: named, guards: guardOf(field.name) });
    }
  }
  return probes;
}

const graphqlRequest = (query: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query }),
});

/** Models whose rows belong to one organisation, by the GraphQL type that shows them. */
const TENANT_TYPES = new Set(['Ecosystem', 'Landscape', 'Team', 'TeamMember', 'TeamInvitation', 'ApiKey', 'UsageBucket']);

/** The `page.total`s of organisation-owned lists in an answer (the root field's list, when it is one). */
function pageTotals(data: GraphQLBody['data'], root: GraphQLField<unknown, unknown>): number[] {
  const list = getNamedType(root.type);
  const records = isObjectType(list) ? list.getFields().data : undefined;
  if (!records || !TENANT_TYPES.has(getNamedType(records.type).name)) return [];
  const page = (data?.[root.name] as { page?: { total?: number | null } } | null | undefined)?.page;
  return typeof page?.total === 'number' ? [page.total] : [];
}

/** The permissions whose absence alone refuses the probe: a guard with no other way through. */
const refusedWithout = (probe: Probe): Permission[] =>
  PERMISSIONS.filter((permission) => probe.guards.some((guard) => !guard.includes(ANY_CALLER) && guard.every((name) => name === permission)));

interface Fixture {
  ecosystem: number;
  team: number;
  byType: Record<string, number>;
}

const SECRET = 'zq-secret';

let app: TestApp;
let everything: TestCredentials;
/** The same user and permissions in another organisation. */
let outsider: TestCredentials;
const without = new Map<Permission, TestCredentials>();
let fixture: Fixture;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 40 });
  // One user in every role: the same subject with every permission, and with every permission but one.
  everything = await createUserToken(app, { user: 'walker', permissions: ALL_PERMISSIONS });
  for (const permission of PERMISSIONS) {
    without.set(permission, await createUserToken(app, { user: 'walker', permissions: PERMISSIONS.filter((name) => name !== permission) }));
  }
  const first = async (list: string): Promise<number> => (await call(everything, 'GET', `/api/${list}?limit=1`)).body.data[0].id;
  // Every organisation-owned record carries SECRET, so another organisation's answers can be searched for it.
  const ecosystem = (await call(everything, 'POST', '/api/ecosystems', { slug: `walk-${SECRET}`, name: SECRET, filter: 'is_company:true' })).body.data.id;
  const landscape = (await call(everything, 'POST', `/api/ecosystems/${ecosystem}/landscapes`, { name: SECRET })).body.data.id;
  await call(everything, 'PUT', `/api/landscapes/${landscape}/entities`, { entity_ids: [await first('entities')] });
  const team = (await call(everything, 'POST', '/api/teams', { name: SECRET, slug: `walkers-${SECRET}` })).body.data.id;
  await call(everything, 'POST', `/api/teams/${team}/invitations`, { invited_email: `${SECRET}@example.com`, invited_user_id: SECRET });
  await call(everything, 'POST', '/api/api-keys', { name: SECRET, permissions: ['read:entities'] });
  // A `.invalid` host never resolves: the test event's attempt fails and is logged, nothing leaves the machine.
  const webhook = (await call(everything, 'POST', '/api/webhooks', { url: 'https://hooks.example.invalid/walk', events: ['entity.created'], description: SECRET })).body.data.id;
  await call(everything, 'POST', `/api/webhooks/${webhook}/test`);
  outsider = await createUserToken(app, { user: 'walker', org: 'another-org', permissions: ALL_PERMISSIONS });
  fixture = {
    ecosystem,
    team,
    byType: {
      Entity: await first('entities'),
      Founder: await first('founders'),
      Investor: await first('investors'),
      Transaction: await first('transactions'),
      Valuation: await first('valuations'),
      NewsArticle: await first('news'),
      Landscape: landscape,
      Team: team,
      Webhook: webhook,
    },
  };
}, 120_000);

afterAll(async () => {
  await app.close();
});

describe('every root field and every type it reaches, without each permission that guards it', () => {
  it('refuses each guarded selection with FORBIDDEN and answers nothing of it; the same selection with every permission succeeds', async () => {
    const probes = Object.values(schema.getQueryType()!.getFields()).flatMap((root) => probesOf(root, fixture));
    // Pages of lists reached through another resource's field (the leak this walk was written for) are among them.
    expect(probes.some((probe) => probe.query.startsWith('{ ecosystemEntities') && probe.query.includes('page { limit offset total'))).toBe(true);
    let refusals = 0;
    for (const probe of probes) {
      const allowed = await everything.graphql(probe.query);
      expect({ query: probe.query, status: allowed.status, errors: allowed.body.errors }).toEqual({ query: probe.query, status: 200, errors: undefined });
      for (const permission of refusedWithout(probe)) {
        const { status, body } = await without.get(permission)!.graphql(probe.query);
        // Nothing but the refusal: no data, counts or cursors beside it.
        expect({ query: probe.query, permission, status, keys: Object.keys(body), data: body.data ?? null }).toEqual({
          query: probe.query,
          permission,
          status: 403,
          keys: ['errors'],
          data: null,
        });
        expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(permission), extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
        refusals++;
      }
    }
    expect(refusals).toBeGreaterThan(100);
  }, 240_000);

  it("lets another organisation's caller read nothing of this one's records, counts included, through any root field", async () => {
    const probes = Object.values(schema.getQueryType()!.getFields()).flatMap((root) => probesOf(root, fixture));
    const seenByOwner = new Set<string>();
    for (const probe of probes) {
      const root = probe.query.slice(2).split(/[ ({]/)[0]!;
      if ((await everything.fetch('/graphql', graphqlRequest(probe.query)).then((response) => response.text())).includes(SECRET)) seenByOwner.add(root);
      const response = await outsider.fetch('/graphql', graphqlRequest(probe.query));
      const text = await response.text();
      expect({ query: probe.query, leaked: text.includes(SECRET) }).toEqual({ query: probe.query, leaked: false });
      const body = JSON.parse(text) as GraphQLBody;
      expect({ query: probe.query, codes: (body.errors ?? []).map((error) => error.extensions?.code) }).toEqual({
        query: probe.query,
        codes: body.errors ? ['NOT_FOUND'] : [],
      });
      for (const total of pageTotals(body.data, schema.getQueryType()!.getFields()[root]!)) {
        expect({ query: probe.query, total }).toEqual({ query: probe.query, total: 0 });
      }
    }
    // The same probes reach the owner's records through every root field that serves them.
    expect([...seenByOwner].sort()).toEqual(['apiKeys', 'ecosystem', 'ecosystems', 'landscape', 'landscapes', 'team', 'teamInvitations', 'teams', 'webhook', 'webhooks']);
  }, 240_000);

  it('refuses the page of an ecosystem\'s entity list to a caller who may read ecosystems but not entities, on both transports', async () => {
    const reader = await createUserToken(app, { user: 'walker', permissions: ['read:ecosystems'] });
    const query = `{ ecosystemEntities(ecosystem: "${fixture.ecosystem}", sort: "-launch_year", limit: 1, offset: 3) { page { total next_cursor } } }`;
    const { status, body } = await reader.graphql(query);
    expect(status).toBe(403);
    expect(body).toEqual({ errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })] });
    expect(body.errors![0]!.message).toContain('read:entities');
    const rest = await reader.fetch(`/api/ecosystems/${fixture.ecosystem}/entities?include_total=true&limit=1`);
    expect(rest.status).toBe(403);
  });
});
