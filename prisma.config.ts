// Prisma CLI configuration. Only `prisma generate` is used (offline); migrations are applied by
// `npm run cli -- migrate` (src/db/migrate.ts), so no datasource URL is needed here.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
