// The filter registries are derived from the built GraphQL schema (src/schema/filter-registries.ts):
// a test that filters without starting an app imports this, which builds it once.
import { getSchema } from '../../src/api-schema.ts';

export const schema = getSchema();
