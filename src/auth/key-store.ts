/**
 * The signing keys one process works with, read from the database and refreshed now and then, so a
 * rotation done by the command line (or another instance) reaches every instance: a token signed with
 * a key this process has not seen yet makes it re-read the table at once (throttled).
 */
import { importJWK, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';
import { errors } from 'jose';
import type { Config } from '../config.ts';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { ensureSigningKey, parseConfiguredKey, readPublishedKeys, type SigningAlgorithm } from './signing-keys.ts';

/** How long a loaded key set is used before it is read again. */
const KEY_REFRESH_MS = 60_000;
/** At most one extra read per this interval for tokens naming an unknown `kid` (random kids cost little). */
const UNKNOWN_KID_REFRESH_MS = 1_000;

export interface Signer {
  kid: string;
  alg: SigningAlgorithm;
  key: CryptoKey;
}

interface VerificationKey {
  alg: SigningAlgorithm;
  key: CryptoKey;
  jwk: JWK;
  /** Null for an active key. */
  expiresAt: Date | null;
}

interface KeySet {
  signer: Signer;
  verifiers: Map<string, VerificationKey>;
  loadedAt: number;
}

export class SigningKeyStore {
  private current: KeySet | undefined;
  private loading: Promise<KeySet> | undefined;
  private ensured = false;
  private lastUnknownKidRead = 0;

  constructor(
    private readonly sql: SqlClient,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** The key new tokens are signed with. */
  async signer(): Promise<Signer> {
    const set = this.current && Date.now() - this.current.loadedAt < KEY_REFRESH_MS ? this.current : await this.load();
    return set.signer;
  }

  /** For jose's jwtVerify: the public key named by the token's `kid`, from our own key set only. */
  readonly verificationKey = async (header: JWTHeaderParameters): Promise<CryptoKey> => {
    const set = await this.loaded();
    let found = typeof header.kid === 'string' ? set.verifiers.get(header.kid) : undefined;
    if (!found && typeof header.kid === 'string' && Date.now() - this.lastUnknownKidRead > UNKNOWN_KID_REFRESH_MS) {
      // A key rotated in by the command line or another instance since our last read.
      this.lastUnknownKidRead = Date.now();
      found = (await this.load()).verifiers.get(header.kid);
    }
    if (!found || found.alg !== header.alg || (found.expiresAt && found.expiresAt.getTime() <= Date.now())) {
      throw new errors.JWKSNoMatchingKey();
    }
    return found.key;
  };

  /** The public JWK Set served at /.well-known/jwks.json. */
  async publicJwks(): Promise<{ keys: JWK[] }> {
    const set = await this.loaded();
    const now = Date.now();
    return {
      keys: [...set.verifiers.values()]
        .filter((entry) => !entry.expiresAt || entry.expiresAt.getTime() > now)
        .map((entry) => entry.jwk),
    };
  }

  /** The current set; a stale one is refreshed in the background rather than making a request wait. */
  private async loaded(): Promise<KeySet> {
    if (!this.current) return this.load();
    if (Date.now() - this.current.loadedAt > KEY_REFRESH_MS) {
      this.load().catch((error: unknown) => this.logger.warn({ err: error }, 'could not refresh the signing keys'));
    }
    return this.current;
  }

  private load(): Promise<KeySet> {
    this.loading ??= this.read().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async read(): Promise<KeySet> {
    if (!this.ensured) {
      await ensureSigningKey(this.sql, this.config);
      this.ensured = true;
    }
    const published = await readPublishedKeys(this.sql);
    const verifiers = new Map<string, VerificationKey>();
    for (const entry of published) {
      verifiers.set(entry.kid, {
        alg: entry.alg,
        key: (await importJWK(entry.publicJwk, entry.alg)) as CryptoKey,
        jwk: entry.publicJwk,
        expiresAt: entry.retiredAt ? entry.expiresAt : null,
      });
    }
    const set: KeySet = { signer: await this.chooseSigner(published), verifiers, loadedAt: Date.now() };
    this.current = set;
    return set;
  }

  private async chooseSigner(published: Awaited<ReturnType<typeof readPublishedKeys>>): Promise<Signer> {
    if (this.config.SIGNING_KEY_JWK) {
      const configured = await parseConfiguredKey(this.config.SIGNING_KEY_JWK);
      return { kid: configured.kid, alg: configured.alg, key: (await importJWK(configured.privateJwk!, configured.alg)) as CryptoKey };
    }
    const newest = published.find((entry) => entry.retiredAt === null && entry.privateJwk);
    if (!newest) throw new Error('No active signing key with a private half in signing_keys');
    return { kid: newest.kid, alg: newest.alg, key: (await importJWK(newest.privateJwk!, newest.alg)) as CryptoKey };
  }
}
