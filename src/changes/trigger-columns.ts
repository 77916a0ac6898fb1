/**
 * The change triggers' column lists, derived from the records the feed reports (resources.ts): a
 * record table's triggers leave out the columns its record does not show (a change of only those is no
 * change a client sees) and report `@updatedAt` columns only along with others; the entity trigger that
 * reports investors names the entity columns an investor shows. The migrations create the triggers;
 * start-up brings their arguments in line with the records (syncChangeTriggers), so a column added to
 * a record reaches `changed_fields` with no trigger written by hand (docs/adding-a-field.md).
 */
import { isObjectType, type GraphQLSchema } from 'graphql';
import { modelColumns, tableOf } from '../db/datamodel.ts';
import type { SqlClient } from '../db/client.ts';
import { MIGRATION_LOCK_KEY } from '../db/migrate.ts';
import { modelOfType } from '../schema/filter-registries.ts';
import type { FollowPath } from '../schema/follow.ts';
import { CHANGE_RESOURCE_NAMES, recordFields, recordTypeName, type ChangeResource } from './resources.ts';

/** A trigger by name, and the arguments its function is called with. */
export type TriggerArguments = ReadonlyMap<string, readonly string[]>;

const pgArray = (items: readonly string[]) => `{${items.join(',')}}`;

function recordTriggers(schema: GraphQLSchema, resource: ChangeResource): [string, string[]][] {
  const type = schema.getType(recordTypeName(resource));
  if (!isObjectType(type)) throw new Error(`No record type for ${resource}`);
  const model = modelOfType(type);
  const fields = recordFields(schema, resource);
  const columns = modelColumns(model);
  const hidden = columns.filter((column) => fields.fieldOf(column.name) === undefined).map((column) => column.name);
  const along = columns.filter((column) => column.updatedAt && !hidden.includes(column.name)).map((column) => column.name);
  const args = ['record', resource, pgArray(hidden), ...(along.length ? [pgArray(along)] : [])];
  return ['insert', 'update'].map((event) => [`${tableOf(model)}_changes_${event}`, args]);
}

/** The entity columns an investor's fields read (its name, HQ, ...): their change is the investor's too. */
function investorTrigger(schema: GraphQLSchema): [string, string[]] {
  const type = schema.getType(recordTypeName('investor'));
  if (!isObjectType(type)) throw new Error('No investor record type');
  const shown = Object.values(type.getFields()).flatMap((field) => {
    const follow = (field.extensions as { follow?: FollowPath }).follow;
    return follow?.column && follow.steps.length === 1 && follow.steps[0] === 'entity' ? [follow.column] : [];
  });
  // Deleting the entity (or undoing it) deletes (or creates) its investor profile.
  return ['entities_investor_changes_update', ['investor', 'investor', pgArray([...shown, 'deleted_at'])]];
}

/** Every change trigger whose arguments derive from the records, with those arguments. */
export function changeTriggerArguments(schema: GraphQLSchema): TriggerArguments {
  return new Map([...CHANGE_RESOURCE_NAMES.flatMap((resource) => recordTriggers(schema, resource)), investorTrigger(schema)]);
}

/** Two argument lists naming the same columns (a list's order means nothing to the trigger). */
function sameArguments(a: readonly string[], b: readonly string[]): boolean {
  const normal = (args: readonly string[]) =>
    args.map((arg) => (arg.startsWith('{') ? pgArray(arg.slice(1, -1).split(',').filter(Boolean).sort()) : arg)).join('\u0000');
  return normal(a) === normal(b);
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Rewrites each trigger of `wanted` whose arguments differ (CREATE OR REPLACE TRIGGER, its definition
 * otherwise as the migration made it), under the migrations' lock. Returns the triggers it rewrote.
 */
export async function syncChangeTriggers(sql: SqlClient, wanted: TriggerArguments): Promise<string[]> {
  return sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const triggers = await tx.query<{ name: string; definition: string; args: string }>(
      `SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition, encode(t.tgargs, 'escape') AS args
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND t.tgname = ANY($1::text[])`,
      [[...wanted.keys()]],
    );
    const rewritten: string[] = [];
    for (const trigger of triggers) {
      const args = wanted.get(trigger.name)!;
      if (sameArguments(trigger.args.split('\\000').filter(Boolean), args)) continue;
      const definition = trigger.definition
        .replace(/^CREATE TRIGGER/, 'CREATE OR REPLACE TRIGGER')
        .replace(/EXECUTE FUNCTION (\S+?)\(.*\)$/, (_match, fn: string) => `EXECUTE FUNCTION ${fn}(${args.map(literal).join(', ')})`);
      await tx.exec(definition);
      rewritten.push(trigger.name);
    }
    return rewritten;
  });
}
