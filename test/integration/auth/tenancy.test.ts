// Organisation scoping declared once per model (src/auth/tenancy.ts): the start refuses a model that
// holds an organisation's data without a rule, and the scoped client narrows every read, update and
// delete of such a model to one organisation, on its own models and through relations, in transactions too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertTenancyDeclared, scopedClient, undeclaredTenancy, type Datamodel, type TenantRules } from '../../../src/auth/tenancy.ts';
import { getDatamodel } from '../../../src/db/generated/pothos-types.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { declaredTenantRules } from '../../../src/schema/resource.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

const datamodel = getDatamodel().datamodel as Datamodel;
getSchema();
const rules = declaredTenantRules();
const without = (model: string): TenantRules => Object.fromEntries(Object.entries(rules).filter(([name]) => name !== model));

describe('the declared tenant rules', () => {
  it('cover every model that holds an organisation’s data', () => {
    expect(undeclaredTenancy(datamodel, rules)).toEqual([]);
    expect(Object.keys(rules).sort()).toEqual(['ApiKey', 'Ecosystem', 'EcosystemMember', 'EcosystemMembership', 'Export', 'ExportFile', 'ExportFilePart', 'Landscape', 'LandscapeEntity', 'Team', 'TeamInvitation', 'TeamMember', 'UsageBucket', 'Webhook', 'WebhookAttempt', 'WebhookDelivery']);
  });

  it('stop the start when a model is left without one, directly or through a relation', () => {
    expect(undeclaredTenancy(datamodel, without('TeamMember'))).toEqual(["TeamMember holds an organisation's data but declares no tenant rule"]);
    expect(undeclaredTenancy(datamodel, without('Landscape'))).toEqual([
      'LandscapeEntity.landscape leads to Landscape, which has no tenant rule',
      "Landscape holds an organisation's data but declares no tenant rule",
    ]);
    const grown: Datamodel = {
      models: { ...datamodel.models, Report: { fields: [{ name: 'org_id', kind: 'scalar', type: 'String', isList: false }] } },
    };
    expect(undeclaredTenancy(grown, rules)).toEqual(["Report holds an organisation's data but declares no tenant rule"]);
    expect(() => assertTenancyDeclared(grown, rules)).toThrow(/Report/);
  });

  it('name what does not exist', () => {
    expect(undeclaredTenancy(datamodel, { ...rules, Team: { column: 'organisation' }, TeamMember: { through: 'squad' }, Nothing: { column: 'org_id' } })).toEqual([
      'Team has no column organisation for its tenant rule',
      'TeamMember has no to-one relation squad for its tenant rule',
      'a tenant rule names the unknown model Nothing',
    ]);
  });
});

describe('the scoped client', () => {
  let db: TestDatabase;
  const ids = { acme: { ecosystem: 0, team: 0 }, globex: { ecosystem: 0, team: 0 } };

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const org of ['acme', 'globex'] as const) {
      await db.prisma.organization.create({ data: { id: org, name: org } });
      ids[org].ecosystem = (await db.prisma.ecosystem.create({ data: { org_id: org, slug: `${org}-e`, name: org, filter: 'is_company:true' } })).id;
      ids[org].team = (
        await db.prisma.team.create({
          data: { org_id: org, name: org, slug: `${org}-t`, created_by: 'u', members: { create: [{ user_id: 'u', role: 'owner' }, { user_id: 'v', role: 'member' }] } },
        })
      ).id;
    }
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('reads only its organisation’s rows, by any query and through relations', async () => {
    const acme = scopedClient(db.prisma, datamodel, rules, 'acme');
    expect((await acme.ecosystem.findMany({ select: { id: true } })).map((row) => row.id)).toEqual([ids.acme.ecosystem]);
    expect(await acme.ecosystem.findUnique({ where: { id: ids.globex.ecosystem } })).toBeNull();
    expect(await acme.ecosystem.findFirst({ where: { slug: 'globex-e' } })).toBeNull();
    expect(await acme.ecosystem.count()).toBe(1);
    expect(await acme.teamMember.count()).toBe(2);
    expect(await acme.teamMember.findFirst({ where: { team_id: ids.globex.team } })).toBeNull();
    // An explicit AND of the caller's stays, and the rule is added beside it.
    expect(await acme.team.findUnique({ where: { id: ids.acme.team, AND: [{ is_active: true }] } })).not.toBeNull();
    expect(await acme.team.findUnique({ where: { id: ids.globex.team, AND: [{ is_active: true }] } })).toBeNull();
    // Other models pass through untouched (an organisation is not scoped data).
    expect(await acme.organization.count()).toBe(2);
  });

  it('updates and deletes only its organisation’s rows, in transactions too', async () => {
    const acme = scopedClient(db.prisma, datamodel, rules, 'acme');
    await expect(acme.ecosystem.update({ where: { id: ids.globex.ecosystem }, data: { name: 'taken' } })).rejects.toThrow();
    expect((await acme.ecosystem.updateMany({ data: { description: 'acme only' } })).count).toBe(1);
    await acme.$transaction(async (tx) => {
      expect((await tx.teamMember.deleteMany({ where: { role: 'member' } })).count).toBe(1);
      expect(await tx.ecosystem.findUnique({ where: { id: ids.globex.ecosystem } })).toBeNull();
    });
    const globex = await db.prisma.ecosystem.findUniqueOrThrow({ where: { id: ids.globex.ecosystem } });
    expect({ name: globex.name, description: globex.description }).toEqual({ name: 'globex', description: '' });
    expect(await db.prisma.teamMember.count({ where: { team_id: ids.globex.team } })).toBe(2);
  });
});
