/**
 * API key credentials. A secret is `vds_` + 256 random bits (the prefix lets secret scanners find
 * leaked ones). Only a scrypt hash with a per-key salt is stored. With 256 random bits a fast hash
 * would do, but the first administrator's secret may be chosen by an operator (ADMIN_CLIENT_SECRET)
 * and be weak, and tokens are requested rarely (they last a day), so every key pays scrypt's
 * ~tens of milliseconds. Stored form: `scrypt$N$r$p$salt$hash` (base64url), so the cost can be
 * raised later without breaking old hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SECRET_PREFIX = 'vds_';
const CLIENT_ID_PREFIX = 'vdc_';

const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Longer inputs are refused before hashing (a real secret is 47 characters). */
export const MAX_SECRET_LENGTH = 512;

/**
 * Compared against when the client is unknown or revoked, so that answer takes as long as a wrong
 * secret. Its hash is all zeros: no input matches it, and the result is ignored anyway.
 */
const DUMMY_HASH = `scrypt$${COST.N}$${COST.r}$${COST.p}$${'A'.repeat(22)}$${'A'.repeat(43)}`;

export function generateClientSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Random and URL-safe; not a secret (it travels in X-Client-Id), but not guessable either. */
export function generateClientId(): string {
  return `${CLIENT_ID_PREFIX}${randomBytes(18).toString('base64url')}`;
}

function derive(secret: string, salt: Buffer, cost: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, length, { ...cost, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(secret, salt, COST, KEY_LENGTH);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

interface ParsedHash {
  cost: ScryptOptions;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (!N || !r || !p) return undefined;
  const hash = Buffer.from(parts[5]!, 'base64url');
  if (hash.length === 0) return undefined;
  return { cost: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64url'), hash };
}

/**
 * True when `secret` matches `stored`. Always derives a key, also when there is no stored hash
 * (unknown client), and compares in constant time.
 */
export async function verifySecret(secret: string, stored: string | undefined): Promise<boolean> {
  const parsed = (stored && parseHash(stored)) || parseHash(DUMMY_HASH)!;
  const candidate = await derive(secret.slice(0, MAX_SECRET_LENGTH), parsed.salt, parsed.cost, parsed.hash.length);
  const equal = timingSafeEqual(candidate, parsed.hash);
  return equal && stored !== undefined && secret.length <= MAX_SECRET_LENGTH;
}
