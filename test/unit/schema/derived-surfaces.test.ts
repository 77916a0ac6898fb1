// What derives from a field's declaration (docs/adding-a-field.md), checked in-process against the
// declarations themselves: the filter registries, the REST records, the examples, the import format and
// the writers' columns. test/integration/adding-a-field.test.ts adds a field and checks the same from
// outside the tree.
import { isObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../helpers/built-schema.ts';
import { columnAlong, modelColumns } from '../../../src/db/datamodel.ts';
import { entitySchema } from '../../../src/data/import/schemas/entity.ts';
import { columnsOf } from '../../../src/data/sql/unnest.ts';
import { fieldRegistry, RESOURCES, type Resource } from '../../../src/filter/index.ts';
import { factsOf } from '../../../src/schema/field-facts.ts';
import { modelOfType, valueKindOf } from '../../../src/schema/filter-registries.ts';
import type { FollowPath } from '../../../src/schema/follow.ts';
import { recordExample, recordFields, recordSelection } from '../../../src/schema/record-fields.ts';
import { declaredResources } from '../../../src/schema/resource.ts';

function recordType(resource: Resource): GraphQLObjectType {
  const list = declaredResources().flatMap((declared) => declared.lists ?? []).find((facts) => facts.resource === resource)!;
  const type = schema.getType(list.typeName);
  if (!isObjectType(type)) throw new Error(list.typeName);
  return type;
}

describe('filter registries', () => {
  it.each(RESOURCES)('%s: every field on a column of its own filters by that column’s kind, in the record’s order', (resource) => {
    const type = recordType(resource);
    const model = modelOfType(type);
    const registry = fieldRegistry(resource);
    const expected = Object.values(type.getFields()).flatMap((field) => {
      const follow = (field.extensions as { follow?: FollowPath }).follow;
      const { filter } = factsOf(field);
      if (!follow?.column || filter === false || (filter && ('target' in filter || filter.column))) return [];
      const column = columnAlong(model, follow.steps.map((step) => (typeof step === 'string' ? step : step[0])), follow.column);
      const kind = valueKindOf(column);
      return kind ? [{ name: field.name, kind, nullable: !column.required }] : [];
    });
    const columns = [...registry.fields.values()].filter((field) => field.target === 'column' && expected.some((e) => e.name === field.name));
    expect(columns.map(({ name, kind, nullable }) => ({ name, kind, nullable }))).toEqual(expected);
  });

  it('reads value kinds from the data model: a uuid, a date, whole dollars, a decimal', () => {
    const kinds = (resource: Resource) => new Map([...fieldRegistry(resource).fields.values()].map((field) => [field.name, field.kind]));
    expect(kinds('entities').get('uuid')).toBe('uuid');
    expect(kinds('transactions').get('date')).toBe('date');
    expect(kinds('transactions').get('amount_usd')).toBe('money');
    expect(kinds('news').get('amount_usd')).toBe('decimal');
    expect(kinds('news').get('publish_date')).toBe('datetime');
  });
});

describe('REST records', () => {
  it('are the record types’ fields, but those with arguments or `record: false`, with another resource as its summary', () => {
    const entity = recordFields(recordType('entities')).map((field) => field.name);
    expect(entity).toContain('external_ids');
    expect(entity).not.toContain('similar');
    expect(entity).not.toContain('total_funding_usd');
    expect(recordSelection(recordFields(recordType('transactions')))).toContain('entity { id name }');
    expect(recordSelection(recordFields(recordType('entities')))).toContain('founders { id name image platform_url }');
  });

  it('have an example made of their fields’ examples, which the import format takes back as a record', () => {
    const example = recordExample(recordFields(recordType('entities'))) as Record<string, unknown>;
    expect(example).toMatchObject({ id: 1042, name: 'Solaris', tags: [{ id: 12, name: 'Fintech', type: 'industry' }] });
    expect(entitySchema.safeParse(example).success).toBe(true);
  });
});

describe('the import format and the writers', () => {
  it('validate and write every column of the data model but those the database or the importer derives', () => {
    const columns = modelColumns('Entity').map((column) => column.name);
    expect(columnsOf('Entity').map((column) => column.name)).toEqual(columns.filter((name) => name !== 'search_name'));
    const parsed = entitySchema.parse({ id: 7, name: 'A', type: 'company' }) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(expect.arrayContaining(['tagline', 'launch_year', 'lat', 'deleted_at']));
    expect(parsed).toMatchObject({ tagline: '', launch_year: null, lat: null, is_company: true, is_investor: false });
    const refused = entitySchema.safeParse({ id: 7, name: 'A', type: 'company', lon: 'east' });
    expect(refused.success ? [] : refused.error.issues.map((issue) => issue.path.join('.'))).toEqual(['lon']);
  });
});
