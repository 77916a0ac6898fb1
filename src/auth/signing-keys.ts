/**
 * Token signing keys in the `signing_keys` table. The newest active key signs; a retired key stays
 * published (and accepted) until `expires_at`, when its last token has expired.
 *
 * A generated key's private JWK is stored in the database (whoever can read that table can mint
 * tokens: protect backups accordingly). A key given by SIGNING_KEY_JWK is never written there: its row
 * holds the public half and an empty `private_jwk` (`{}`), so that changing the configured key retires
 * the old one like a rotation does.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Config } from '../config.ts';
import type { SqlClient, SqlTransaction } from '../db/client.ts';

export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * Added to a retired key's lifetime: covers clock skew and instances that keep signing with the old
 * key until their next refresh of the key set (KEY_REFRESH_MS in key-store.ts).
 */
export const ROTATION_GRACE_SECONDS = 300;

/** An arbitrary constant naming the signing-key lock among advisory locks. */
const SIGNING_KEY_LOCK = 727_011_522;

export interface SigningKeyMaterial {
  kid: string;
  alg: SigningAlgorithm;
  publicJwk: JWK;
  /** Undefined for a configured key (its private half lives only in configuration). */
  privateJwk: JWK | undefined;
}

export interface PublishedKey extends SigningKeyMaterial {
  createdAt: Date;
  /** Null while the key is active (may sign). */
  retiredAt: Date | null;
  expiresAt: Date | null;
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y'] as const;

function publicPart(jwk: JWK, kid: string, alg: SigningAlgorithm): JWK {
  const out: JWK = { kid, alg, use: 'sig' };
  for (const member of PUBLIC_MEMBERS) if (jwk[member] !== undefined) out[member] = jwk[member];
  return out;
}

export async function generateSigningKey(alg: SigningAlgorithm = 'ES256'): Promise<SigningKeyMaterial> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const exportedPublic = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exportedPublic);
  return { kid, alg, publicJwk: publicPart(exportedPublic, kid, alg), privateJwk: { ...(await exportJWK(privateKey)), kid, alg } };
}

/** SIGNING_KEY_JWK: a private EC P-256 (ES256) or OKP Ed25519 (EdDSA) JWK; `kid` defaults to its thumbprint. */
export async function parseConfiguredKey(text: string): Promise<SigningKeyMaterial> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error('SIGNING_KEY_JWK is not valid JSON');
  }
  const alg: SigningAlgorithm | undefined =
    jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'OKP' && jwk.crv === 'Ed25519' ? 'EdDSA' : undefined;
  if (!alg) throw new Error('SIGNING_KEY_JWK must be an EC P-256 (ES256) or OKP Ed25519 (EdDSA) key');
  if (jwk.alg !== undefined && jwk.alg !== alg) throw new Error(`SIGNING_KEY_JWK: alg ${jwk.alg} does not fit the key (${alg})`);
  if (typeof jwk.d !== 'string') throw new Error('SIGNING_KEY_JWK must be a private key (with "d")');
  const kid = typeof jwk.kid === 'string' && jwk.kid ? jwk.kid : await calculateJwkThumbprint(jwk);
  return { kid, alg, publicJwk: publicPart(jwk, kid, alg), privateJwk: { ...jwk, kid, alg } };
}

interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: JWK;
  private_jwk: JWK;
  created_at: Date | string;
  retired_at: Date | string | null;
  expires_at: Date | string | null;
}

const toDate = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

/** Active keys and retired keys not yet expired, newest first. */
export async function readPublishedKeys(sql: Pick<SqlClient, 'query'>): Promise<PublishedKey[]> {
  const rows = await sql.query<SigningKeyRow>(
    `SELECT kid, alg, public_jwk, private_jwk, created_at, retired_at, expires_at FROM signing_keys
      WHERE retired_at IS NULL OR expires_at > now() ORDER BY created_at DESC, kid`,
  );
  return rows.flatMap((row) => {
    if (!(SIGNING_ALGORITHMS as readonly string[]).includes(row.alg)) return [];
    const hasPrivate = typeof row.private_jwk === 'object' && row.private_jwk !== null && 'd' in row.private_jwk;
    return [{
      kid: row.kid,
      alg: row.alg as SigningAlgorithm,
      publicJwk: row.public_jwk,
      privateJwk: hasPrivate ? row.private_jwk : undefined,
      createdAt: new Date(row.created_at),
      retiredAt: toDate(row.retired_at),
      expiresAt: toDate(row.expires_at),
    }];
  });
}

type Tx = SqlTransaction;

async function insertKey(tx: Tx, key: SigningKeyMaterial): Promise<void> {
  await tx.query(
    `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, created_at) VALUES ($1, $2, $3::jsonb, $4::jsonb, clock_timestamp())
     ON CONFLICT (kid) DO UPDATE SET retired_at = NULL, expires_at = NULL, created_at = clock_timestamp()`,
    [key.kid, key.alg, JSON.stringify(key.publicJwk), JSON.stringify(key.privateJwk ?? {})],
  );
}

/** Retires every active key but `keep`; returns their kids. */
async function retireOthers(tx: Tx, keep: string, config: Config): Promise<string[]> {
  const rows = await tx.query<{ kid: string }>(
    `UPDATE signing_keys SET retired_at = now(), expires_at = now() + make_interval(secs => $2)
      WHERE retired_at IS NULL AND kid <> $1 RETURNING kid`,
    [keep, config.TOKEN_TTL_SECONDS + ROTATION_GRACE_SECONDS],
  );
  return rows.map((row) => row.kid);
}

/**
 * Makes sure a key can sign: the configured one (retiring any other), or, without configuration, an
 * existing active key or a new one. Under a lock, so instances starting together agree on one key.
 */
export async function ensureSigningKey(sql: SqlClient, config: Config): Promise<void> {
  const configured = config.SIGNING_KEY_JWK ? await parseConfiguredKey(config.SIGNING_KEY_JWK) : undefined;
  const generated = configured ? undefined : await generateSigningKey();
  await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SIGNING_KEY_LOCK]);
    if (configured) {
      const [current] = await tx.query<{ kid: string }>(
        'SELECT kid FROM signing_keys WHERE kid = $1 AND retired_at IS NULL',
        [configured.kid],
      );
      // Never the private half: it stays in configuration.
      if (!current) await insertKey(tx, { ...configured, privateJwk: undefined });
      await retireOthers(tx, configured.kid, config);
      return;
    }
    const active = await tx.query<{ kid: string }>(
      `SELECT kid FROM signing_keys WHERE retired_at IS NULL AND private_jwk ? 'd' LIMIT 1`,
    );
    if (active.length === 0) {
      await insertKey(tx, generated!);
      await retireOthers(tx, generated!.kid, config);
    }
  });
}

/** `keys:rotate-signing`: a new key signs from now on; the old ones stay published until their tokens expire. */
export async function rotateSigningKey(sql: SqlClient, config: Config): Promise<{ kid: string; retired: string[] }> {
  if (config.SIGNING_KEY_JWK) {
    throw new Error('SIGNING_KEY_JWK is set: rotate by configuring a new key (the old one stays published until its tokens expire)');
  }
  const key = await generateSigningKey();
  const retired = await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SIGNING_KEY_LOCK]);
    await insertKey(tx, key);
    return retireOthers(tx, key.kid, config);
  });
  return { kid: key.kid, retired };
}
