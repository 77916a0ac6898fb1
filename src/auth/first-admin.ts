/**
 * The first administrator (docs/auth.md), run at start-up:
 * - with ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET, that key exists in ADMIN_ORG with every permission.
 *   If it exists with another secret, the stored hash is replaced (the environment is the source of
 *   truth for this one key); missing permissions are added. A key revoked through the API stays
 *   revoked: configuration does not undo a revocation (choose a new ADMIN_CLIENT_ID instead).
 * - without them, a database with no keys at all gets one, and its credentials are written to
 *   DATA_DIR/admin-credentials.json (mode 0600). Only the file's path is logged.
 */
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { createApiKey } from './api-keys.ts';
import { ensureOrganization } from './organizations.ts';
import { PERMISSIONS } from './permissions.ts';
import { generateClientId, generateClientSecret, hashSecret, verifySecret } from './secrets.ts';

export const ADMIN_CREDENTIALS_FILE = 'admin-credentials.json';
const ADMIN_KEY_NAME = 'Administrator';
const CREATED_BY = 'system';
/** An arbitrary constant naming this step's lock among advisory locks. */
const FIRST_ADMIN_LOCK = 727_011_523;

export interface FirstAdminDependencies {
  config: Config;
  db: Pick<Database, 'prisma' | 'sql'>;
  logger: Logger;
}

export async function ensureFirstAdministrator({ config, db, logger }: FirstAdminDependencies): Promise<void> {
  const clientId = config.ADMIN_CLIENT_ID;
  const clientSecret = config.ADMIN_CLIENT_SECRET;
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw new Error('Set both ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET, or neither');
  }
  if (clientId && clientSecret) {
    await ensureConfiguredAdministrator({ config, db, logger }, clientId, clientSecret);
  } else {
    await createAdministratorIfNoKeys({ config, db, logger });
  }
}

async function ensureConfiguredAdministrator(deps: FirstAdminDependencies, clientId: string, clientSecret: string): Promise<void> {
  const { config, db, logger } = deps;
  const existing = await db.prisma.apiKey.findUnique({ where: { client_id: clientId } });
  if (!existing) {
    await createApiKey(db.prisma, {
      name: ADMIN_KEY_NAME,
      permissions: [...PERMISSIONS],
      orgId: config.ADMIN_ORG,
      createdBy: CREATED_BY,
      clientId,
      clientSecret,
    });
    logger.info({ clientId, orgId: config.ADMIN_ORG }, 'created the administrator API key from ADMIN_CLIENT_ID');
    return;
  }
  if (existing.revoked_at) {
    logger.warn({ clientId }, 'ADMIN_CLIENT_ID names a revoked API key; it stays revoked (choose a new ADMIN_CLIENT_ID)');
    return;
  }
  const permissions = [...new Set([...existing.permissions, ...PERMISSIONS])];
  const sameSecret = await verifySecret(clientSecret, existing.secret_hash);
  if (sameSecret && permissions.length === existing.permissions.length) return;
  await db.prisma.apiKey.update({
    where: { id: existing.id },
    data: { permissions, ...(sameSecret ? {} : { secret_hash: await hashSecret(clientSecret) }) },
  });
  if (!sameSecret) logger.info({ clientId }, 'updated the administrator API key secret from ADMIN_CLIENT_SECRET');
}

async function createAdministratorIfNoKeys({ config, db, logger }: FirstAdminDependencies): Promise<void> {
  // Under a lock, so two instances starting on an empty database create one administrator, not two.
  const created = await db.sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_ADMIN_LOCK]);
    const [any] = await tx.query('SELECT 1 FROM api_keys LIMIT 1');
    if (any) return undefined;
    await ensureOrganization(tx, config.ADMIN_ORG);
    // Plain SQL rather than Prisma: the insert must be inside this locked transaction.
    const clientId = generateClientId();
    const clientSecret = generateClientSecret();
    await tx.query(
      `INSERT INTO api_keys (org_id, name, client_id, secret_hash, permissions, created_by) VALUES ($1, $2, $3, $4, $5, $6)`,
      [config.ADMIN_ORG, ADMIN_KEY_NAME, clientId, await hashSecret(clientSecret), [...PERMISSIONS], CREATED_BY],
    );
    return { clientId, clientSecret };
  });
  if (!created) return;
  const path = resolve(join(config.DATA_DIR, ADMIN_CREDENTIALS_FILE));
  await writeCredentialsFile(path, {
    client_id: created.clientId,
    client_secret: created.clientSecret,
    org_id: config.ADMIN_ORG,
    token_url: `${config.AUTH_URL}/oauth/token`,
    audience: config.PUBLIC_URL,
  });
  logger.info({ path }, 'created the first administrator API key; its credentials are in this file (mode 0600)');
}

/** Written fresh with mode 0600 (an existing file is removed first: `mode` applies only on creation). */
async function writeCredentialsFile(path: string, content: Record<string, string>): Promise<void> {
  await mkdir(resolve(path, '..'), { recursive: true });
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await writeFile(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
}
