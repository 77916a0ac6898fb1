/**
 * Who a verified token speaks for. Claims are read the same for our tokens and the external
 * issuer's: `permissions` (array) or a space-separated `scope`, and `org_id`. The client id a caller
 * must send as X-Client-Id is `sub`, or for Auth0-style machine tokens (`<client_id>@clients`) and
 * tokens with `azp`/`client_id`, that client id.
 *
 * Issuers never share ids (docs/auth.md, "Issuers"): the principal of an external issuer's token is
 * named `<sub>@<issuer>` and its client `<client_id>@<issuer>`, where `<issuer>` is the issuer's host
 * and path (`tenant.auth0.com`). Only our own client-credentials tokens name an API key of ours. So an
 * external token whose `sub` is `<one of our client ids>@clients`, or whose `azp` is one, is a
 * different principal from that key: it neither owns, revokes, nor is counted or limited as it.
 */
import type { JWTPayload } from 'jose';
import type { Principal } from './principal.ts';
import { CLIENT_CREDENTIALS_GRANT } from './tokens.ts';
import { invalidToken, type VerifiedToken } from './verify.ts';

const MAX_CLAIM_LENGTH = 256;
const MAX_PERMISSIONS = 100;

export interface Identity {
  principal: Principal;
  /** Values X-Client-Id may carry: the token's own spelling, never the `@<issuer>` form. */
  acceptedClientIds: ReadonlySet<string>;
}

/**
 * How an external issuer is named in ids: its host and path without the scheme and trailing slashes
 * (`https://tenant.auth0.com/` → `tenant.auth0.com`, `https://sso.example/realms/a` →
 * `sso.example/realms/a`); an issuer that is not a URL, as it is.
 */
function issuerLabel(issuer: string): string {
  if (URL.canParse(issuer)) {
    const url = new URL(issuer);
    if (url.host) return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  }
  return issuer;
}

/** An external issuer's id for one of its subjects or clients. */
const externalId = (id: string, issuer: string): string => `${id}@${issuerLabel(issuer)}`;

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

/**
 * The identity a verified token carries. `externalIssuer` (OIDC_ISSUER) reserves its ids: one of our
 * own tokens whose subject ends in `@<that issuer>` would be taken for that issuer's principal, so it
 * is refused.
 */
export function toIdentity({ source, payload }: VerifiedToken, externalIssuer?: string): Identity {
  const subject = payload.sub;
  if (!shortString(subject)) throw invalidToken('The access token "sub" claim is invalid');
  const orgId = payload.org_id;
  if (!shortString(orgId)) throw invalidToken('The access token has no "org_id" claim');
  const permissions = new Set(readPermissions(payload));

  if (source === 'local') {
    if (payload.gty !== undefined && payload.gty !== CLIENT_CREDENTIALS_GRANT && payload.gty !== 'user') {
      throw invalidToken('The access token "gty" claim is invalid');
    }
    if (externalIssuer !== undefined && subject.endsWith(`@${issuerLabel(externalIssuer)}`)) {
      throw invalidToken("The access token's subject is named like a principal of the external identity provider");
    }
    const kind = payload.gty === CLIENT_CREDENTIALS_GRANT ? 'api-key' : 'user';
    return {
      principal: { subject, kind, clientId: subject, ...(kind === 'api-key' ? { apiKey: subject } : {}), orgId, permissions },
      acceptedClientIds: new Set([subject]),
    };
  }

  const issuer = payload.iss;
  if (typeof issuer !== 'string') throw invalidToken('The access token "iss" claim is invalid');
  const machine = subject.endsWith('@clients') || payload.gty === CLIENT_CREDENTIALS_GRANT;
  const delegated = [payload.azp, payload.client_id].find(shortString);
  const clientId = subject.endsWith('@clients') ? subject.slice(0, -'@clients'.length) : (delegated ?? subject);
  if (!clientId) throw invalidToken('The access token "sub" claim is invalid');
  return {
    principal: {
      subject: externalId(subject, issuer),
      kind: machine ? 'api-key' : 'user',
      clientId: externalId(clientId, issuer),
      orgId,
      permissions,
    },
    acceptedClientIds: new Set([subject, clientId]),
  };
}
