/**
 * Who a verified token speaks for. Claims are read the same for our tokens and the external
 * issuer's: `permissions` (array) or a space-separated `scope`, and `org_id`. The client id a caller
 * must send as X-Client-Id is `sub`, or for Auth0-style machine tokens (`<client_id>@clients`) and
 * tokens with `azp`/`client_id`, that client id.
 */
import type { JWTPayload } from 'jose';
import type { Principal } from './principal.ts';
import { CLIENT_CREDENTIALS_GRANT } from './tokens.ts';
import { invalidToken, type VerifiedToken } from './verify.ts';

const MAX_CLAIM_LENGTH = 256;
const MAX_PERMISSIONS = 100;

export interface Identity {
  principal: Principal;
  /** Values X-Client-Id may carry. */
  acceptedClientIds: ReadonlySet<string>;
  /** Our own API key tokens: the key's status is checked per request. */
  isLocalApiKey: boolean;
}

function shortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_LENGTH;
}

function readPermissions(payload: JWTPayload): string[] {
  const { permissions, scope } = payload;
  const list = Array.isArray(permissions) ? permissions : typeof scope === 'string' ? scope.split(' ') : [];
  if (list.length > MAX_PERMISSIONS || !list.every((item) => typeof item === 'string')) {
    throw invalidToken('The access token "permissions" claim is invalid');
  }
  return (list as string[]).filter(Boolean);
}

export function toIdentity({ source, payload }: VerifiedToken): Identity {
  const subject = payload.sub;
  if (!shortString(subject)) throw invalidToken('The access token "sub" claim is invalid');
  const orgId = payload.org_id;
  if (!shortString(orgId)) throw invalidToken('The access token has no "org_id" claim');
  const permissions = new Set(readPermissions(payload));

  if (source === 'local') {
    if (payload.gty !== undefined && payload.gty !== CLIENT_CREDENTIALS_GRANT && payload.gty !== 'user') {
      throw invalidToken('The access token "gty" claim is invalid');
    }
    const kind = payload.gty === CLIENT_CREDENTIALS_GRANT ? 'api-key' : 'user';
    return {
      principal: { subject, kind, clientId: subject, orgId, permissions },
      acceptedClientIds: new Set([subject]),
      isLocalApiKey: kind === 'api-key',
    };
  }

  const machine = subject.endsWith('@clients') || payload.gty === CLIENT_CREDENTIALS_GRANT;
  const delegated = [payload.azp, payload.client_id].find(shortString);
  const clientId = subject.endsWith('@clients') ? subject.slice(0, -'@clients'.length) : (delegated ?? subject);
  if (!clientId) throw invalidToken('The access token "sub" claim is invalid');
  return {
    principal: { subject, kind: machine ? 'api-key' : 'user', clientId, orgId, permissions },
    acceptedClientIds: new Set([subject, clientId]),
    isLocalApiKey: false,
  };
}
