/**
 * Issues access tokens: JWTs (RFC 9068 `typ: at+jwt`) signed with our current key. API key tokens
 * carry `gty: "client-credentials"`; user tokens (minted by `token:user`) carry no `gty`.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Config } from '../config.ts';
import type { SigningKeyStore } from './key-store.ts';

export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const CLIENT_CREDENTIALS_GRANT = 'client-credentials';

export interface AccessTokenRequest {
  /** The API key's client_id, or the user id. */
  subject: string;
  orgId: string;
  permissions: readonly string[];
  kind: 'api-key' | 'user';
  /** Defaults to TOKEN_TTL_SECONDS. */
  lifetimeSeconds?: number;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export async function issueAccessToken(
  keys: SigningKeyStore,
  config: Pick<Config, 'PUBLIC_URL' | 'TOKEN_TTL_SECONDS'>,
  request: AccessTokenRequest,
): Promise<IssuedToken> {
  const signer = await keys.signer();
  const expiresIn = request.lifetimeSeconds ?? config.TOKEN_TTL_SECONDS;
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { permissions: [...request.permissions], org_id: request.orgId };
  if (request.kind === 'api-key') claims.gty = CLIENT_CREDENTIALS_GRANT;
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(config.PUBLIC_URL)
    .setSubject(request.subject)
    .setAudience(config.PUBLIC_URL)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .setJti(randomUUID())
    .sign(signer.key);
  return { accessToken, expiresIn };
}
