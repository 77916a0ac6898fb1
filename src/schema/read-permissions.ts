/**
 * The one rule for reads that reach other resources: a filter condition or an aggregate dimension
 * that reaches a related resource (`investor__name:...` on entities, `group_by=investors.name` on
 * transactions) reads that resource's records, so it needs that resource's read permission, wherever
 * the filter comes from (the request, or an ecosystem's stored filter) and whatever is answered (rows,
 * a total, an aggregate): a count of entities backed by an investor called X tells about investors.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { Resource } from '../filter/index.ts';
import type { GraphQLContext } from './context.ts';
import { readPermissionByFilter } from './resource.ts';

/** 403 naming every missing permission when the caller cannot read each of `resources`. */
export function requireReadPermissions(context: Pick<GraphQLContext, 'principal'>, resources: Iterable<Resource>): void {
  const byResource = readPermissionByFilter();
  const needed = new Set([...resources].flatMap((resource) => (byResource[resource] ? [byResource[resource]] : [])));
  if (needed.size === 0) return;
  const { permissions } = requirePrincipal(context.principal);
  const missing = [...needed].filter((permission) => !permissions.has(permission));
  if (missing.length) {
    throw new AppError('FORBIDDEN', `This request needs the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}`);
  }
}
