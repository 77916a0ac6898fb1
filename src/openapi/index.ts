/** The OpenAPI document (built from the route table and the GraphQL schema) and the /docs page. */
export { buildOpenApiDocument, type OpenApiSources } from './build.ts';
export { queryIntegerBounds } from './query-bounds.ts';
export { docsSite, DOCS_ASSETS_PATH, type DocsAsset, type DocsSite } from './docs-page.ts';
export type { JsonSchema, OpenApiDocument } from './types.ts';
