// The field registry of every filterable resource. Ecosystems filter entities, so they use `entities`.
// The registries are derived from the fields' declarations in the built GraphQL schema
// (src/schema/filter-registries.ts), which installs them here when it is built: the filter layer
// sits below the schema and reads them without importing it.
import type { Resource, ResourceRegistry } from './fields/types.ts';
import { RESOURCES } from './fields/types.ts';

export * from './fields/types.ts';

let registries: Readonly<Record<Resource, ResourceRegistry>> | undefined;

/** Called when the schema is built. */
export function installFieldRegistries(installed: Readonly<Record<Resource, ResourceRegistry>>): void {
  registries = Object.freeze({ ...installed });
}

export function fieldRegistry(resource: Resource): ResourceRegistry {
  if (!registries) throw new Error('The filter registries are derived from the GraphQL schema: build it first (getSchema())');
  return registries[resource];
}

export function isResource(value: string): value is Resource {
  return (RESOURCES as readonly string[]).includes(value);
}
