import { migrate } from '../db/migrate.ts';
import { alignChangeTriggers } from '../startup.ts';
import type { Command } from './command.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'migrate',
  summary: 'Apply pending database migrations (start-up does this too)',
  run: async (_args, context) => {
    const db = await context.database({ migrate: false });
    const applied = await migrate(db.sessionSql);
    await alignChangeTriggers(db, context.logger);
    context.print(applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date');
    return 0;
  },
};
