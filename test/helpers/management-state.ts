// A digest of every management table, whole: equal before and after a request means it changed nothing.
// An API key's last_used_at is left out: any authenticated request may touch it (once a minute).
import type { TestApp } from './app.ts';

const TABLES = ['ecosystems', 'landscapes', 'landscape_entities', 'teams', 'team_members', 'team_invitations', 'api_keys'];

export async function managementState(app: TestApp): Promise<string> {
  const rows = await Promise.all(
    TABLES.map((table) =>
      app.db.prisma.$queryRawUnsafe<{ digest: string | null }[]>(`SELECT md5(string_agg(r, '|' ORDER BY r)) AS digest FROM (SELECT (to_jsonb(t) - 'last_used_at')::text AS r FROM ${table} t) rows`),
    ),
  );
  return rows.map((row, index) => `${TABLES[index]}:${row[0]?.digest ?? ''}`).join(',');
}
