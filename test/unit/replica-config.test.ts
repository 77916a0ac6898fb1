// DATABASE_REPLICA_URLS (docs/operations.md, "Read replicas"): parsed once, refused without PostgreSQL.
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { databaseOptions } from '../../src/db/client.ts';
import { parseLsn } from '../../src/db/replicas.ts';

it('reads the replicas as a list and hands them to the database options', () => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://app@primary:5432/venture',
    DATABASE_REPLICA_URLS: ' postgres://app@replica-1:5432/venture, postgresql://app@replica-2/venture ,',
    DATABASE_REPLICA_MAX_LAG_MS: '2000',
  });
  expect(config.DATABASE_REPLICA_URLS).toEqual(['postgres://app@replica-1:5432/venture', 'postgresql://app@replica-2/venture']);
  expect(databaseOptions(config).replicas).toEqual({
    urls: config.DATABASE_REPLICA_URLS,
    maxLagMs: 2000,
    checkIntervalMs: 1000,
  });
  expect(databaseOptions(loadConfig({ DATABASE_URL: 'postgres://app@primary/venture' })).replicas).toBeUndefined();
});

it('refuses replicas with the embedded database, and URLs that are not PostgreSQL', () => {
  expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://app@replica-1/venture' })).toThrow(ConfigError);
  expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://app@replica-1/venture' })).toThrow(/DATABASE_REPLICA_URLS: read replicas need PostgreSQL/);
  expect(() => loadConfig({ DATABASE_URL: 'postgres://app@primary/venture', DATABASE_REPLICA_URLS: 'mysql://replica/venture' })).toThrow(
    /DATABASE_REPLICA_URLS.*postgres:\/\//,
  );
});

it('orders WAL positions as PostgreSQL does', () => {
  expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
  expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
});
