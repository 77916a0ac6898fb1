// Creates the PostgreSQL database a URL names when the server has none by that name, so `npm test`
// and `npm run bench` run on a fresh server without a manual `createdb`. Connects to the server's `postgres`
// maintenance database for that; a database name cannot be a bind parameter, so it is quoted.
import pg from 'pg';

export async function ensureDatabase(url: string): Promise<'created' | 'present'> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!name) throw new Error(`no database name in ${url}`);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return 'present';
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (error) {
      // Another run created it between the check and here.
      if ((error as { code?: string }).code !== '42P04') throw error;
      return 'present';
    }
    return 'created';
  } finally {
    await client.end();
  }
}
