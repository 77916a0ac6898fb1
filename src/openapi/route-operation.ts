/** One REST route as an OpenAPI operation, everything read from its prepared GraphQL operation. */
import { getNamedType, isObjectType, type DocumentNode, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { recordFieldNames } from '../rest/operations.ts';
import type { Route } from '../rest/routes.ts';
import { listFacts } from '../schema/resource.ts';
import { operationShape } from './operation-shape.ts';
import { routeInputs } from './parameters.ts';
import { routePermission, securityFor, type RoutePermission } from './permissions.ts';
import { errorResponses, errorStatuses, exportsCsv, FORMAT_PARAMETER, successResponse } from './responses.ts';
import { SelectionWalker } from './schemas-from-graphql.ts';
import type { JsonSchema, OperationObject } from './types.ts';

export interface RouteOperation {
  operation: OperationObject;
  permission: RoutePermission;
}

/** The prepared operation's name, as JavaScript names a function: `ListEntities` → `listEntities`. */
export const operationId = (route: Route): string => route.operation[0]!.toLowerCase() + route.operation.slice(1);

/**
 * What the operation does, from the prepared operation's name: `ListEcosystemEntities` → `List
 * ecosystem entities`, `CreateApiKey` → `Create API key`.
 */
export const operationSummary = (route: Route): string =>
  route.operation
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(' ')
    .map((word, index) => (word === 'Api' ? 'API' : index === 0 ? word : word.toLowerCase()))
    .join(' ');

/** The row type of a `{data, page}` list type, e.g. `Entity` for `EntityList`. */
function listRowTypeName(type: GraphQLOutputType): string | undefined {
  const list = getNamedType(type);
  const data = isObjectType(list) ? list.getFields().data : undefined;
  return data ? getNamedType(data.type).name : undefined;
}

export function routeOperation(
  route: Route,
  document: DocumentNode,
  schema: GraphQLSchema,
  components: Map<string, JsonSchema>,
): RouteOperation {
  const shape = operationShape(schema, document);
  const walker = new SelectionWalker(shape.fragments, components);
  const permission = routePermission(schema, shape.rootType.name, shape.rootField.name);
  const rowType =
    shape.key === 'list'
      ? listRowTypeName(shape.rootField.type)
      : shape.key === 'items'
        ? getNamedType(shape.rootField.type).name
        : undefined;
  const inputs = routeInputs(route, shape.variables, rowType ? listFacts(rowType) : undefined, recordFieldNames(document));
  const [status, success] = successResponse(route, shape, walker);
  const operation: OperationObject = {
    operationId: operationId(route),
    summary: operationSummary(route),
    description: [shape.rootField.description, permission.text].filter(Boolean).join('\n\n'),
    tags: [route.id.split('.')[0]!],
    security: securityFor(permission),
    parameters: [...inputs.parameters, ...(exportsCsv(route, shape) ? [FORMAT_PARAMETER] : [])],
    responses: { [status]: success, ...errorResponses(errorStatuses(route, permission)) },
    'x-permissions': permission.permissions,
  };
  if (inputs.body) operation.requestBody = { required: true, content: { 'application/json': { schema: inputs.body } } };
  return { operation, permission };
}
