/**
 * The ranges /openapi.json states for each route's integer query parameters, keyed by the route's
 * endpoint (`GET /api/search`), for REST's refusals (src/rest/request.ts): `limit=abc` names the
 * route's real range (1 to 50), the one a client reads in the document, not the GraphQL Int's.
 */
import type { IntegerBounds } from '../rest/request.ts';
import type { HttpVerb, OpenApiDocument, ParameterObject, Reference } from './types.ts';

const VERBS: readonly HttpVerb[] = ['get', 'post', 'put', 'patch', 'delete'];
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

const isParameter = (parameter: ParameterObject | Reference): parameter is ParameterObject => 'in' in parameter;

export function queryIntegerBounds(document: OpenApiDocument): Map<string, IntegerBounds> {
  const byEndpoint = new Map<string, IntegerBounds>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const verb of VERBS) {
      const parameters = (item[verb]?.parameters ?? []).filter(isParameter);
      const integers = parameters.filter((parameter) => parameter.in === 'query' && parameter.schema.type === 'integer');
      if (!integers.length) continue;
      byEndpoint.set(
        `${verb.toUpperCase()} ${path}`,
        Object.fromEntries(integers.map(({ name, schema }) => [name, { min: schema.minimum ?? INT_MIN, max: schema.maximum ?? INT_MAX }])),
      );
    }
  }
  return byEndpoint;
}
