/**
 * The permission a route needs: the rule its operation's root field declares, the same rule
 * authorisation enforces (src/auth/permissions.ts).
 */
import type { GraphQLSchema } from 'graphql';
import { ANY_CALLER, PERMISSIONS, rootFieldRule, rulePermissions } from '../auth/permissions.ts';
import type { SecurityRequirement } from './types.ts';

export interface RoutePermission {
  /** Every permission the route may need (`x-permissions`); empty when any valid token will do. */
  permissions: string[];
  /** One sentence for the operation's description. */
  text: string;
  /** Whether some valid tokens can be refused with 403 by this rule. */
  canForbid: boolean;
}

export function routePermission(schema: GraphQLSchema, rootTypeName: string, fieldName: string): RoutePermission {
  const rule = rootFieldRule(schema, `${rootTypeName}.${fieldName}`);
  // assertAccessDeclared stops the start first; this keeps the document honest regardless.
  if (rule === undefined) throw new Error(`OpenAPI: ${rootTypeName}.${fieldName} has no permission rule`);
  if (rule === ANY_CALLER) {
    return { permissions: [], text: 'Permission: none; any valid token.', canForbid: false };
  }
  if (typeof rule === 'string') {
    return { permissions: [rule], text: `Permission: \`${rule}\`.`, canForbid: true };
  }
  if ('grants' in rule) {
    const text = `Permission: \`${rule.permission}\`, and every permission listed in \`${rule.grants}\`.`;
    return { permissions: [rule.permission], text, canForbid: true };
  }
  const pairs = Object.entries(rule.byValue).map(([value, permission]) => `\`${value}\` → \`${permission}\``);
  const otherwise = rule.otherwise === ANY_CALLER ? 'any valid token' : `\`${rule.otherwise}\``;
  return {
    permissions: rulePermissions(rule),
    text: `Permission: by \`${rule.argument}\`: ${pairs.join(', ')}; any other value: ${otherwise}.`,
    canForbid: true,
  };
}

/** Bearer token, or the OAuth2 client-credentials flow that issues one; scopes name the permission. */
export const IDENTIFYING_HEADERS = { clientId: [], userAgent: [] };

export function securityFor(permission: RoutePermission): SecurityRequirement[] {
  // A fixed permission is the scope to request; a value-dependent one cannot be named up front.
  const scopes = permission.permissions.length === 1 ? permission.permissions : [];
  // The client names itself on every request: X-Client-Id and User-Agent go with the token, and are
  // declared as the schemes a generated client sets once, not as parameters of every call.
  return [{ bearerAuth: [], ...IDENTIFYING_HEADERS }, { oauth2: scopes, ...IDENTIFYING_HEADERS }];
}

/** The OAuth2 scopes: every permission, described by the paths that need it. */
export function scopeDescriptions(usedBy: ReadonlyMap<string, string[]>): Record<string, string> {
  return Object.fromEntries(
    PERMISSIONS.map((permission) => {
      const paths = usedBy.get(permission);
      return [permission, paths?.length ? `Needed by ${paths.join(', ')}` : 'Not needed on its own by the REST paths here'];
    }),
  );
}
