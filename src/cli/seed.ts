import { createProgressReporter } from '../data/progress-reporter.ts';
import { DEFAULT_SEED, seedDatabase, SeedRefusedError } from '../data/seed/index.ts';
import { CliUsageError, parseOptions, type Command } from './command.ts';

const DEFAULT_ENTITIES = 10_000;

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < 1) throw new CliUsageError(`--${name} must be a positive integer`);
  return value;
}

/** `seed [--entities N] [--seed S] [--replace]`: deterministic synthetic data (src/data/seed). */
export const seedCommand: Command = {
  name: 'seed',
  usage: 'seed [--entities N] [--seed S] [--replace]',
  summary: `Fill an empty database with synthetic data (default ${DEFAULT_ENTITIES} entities; --replace clears reference data first)`,
  run: async (args, context) => {
    const values = parseOptions(args, {
      entities: { type: 'string' },
      seed: { type: 'string' },
      replace: { type: 'boolean', default: false },
    });
    const entities = positiveInteger('entities', values.entities, DEFAULT_ENTITIES);
    const seed = positiveInteger('seed', values.seed, DEFAULT_SEED);
    const db = await context.database();
    const progress = createProgressReporter();
    const started = performance.now();
    try {
      const counts = await seedDatabase(db, {
        entities,
        seed,
        replace: values.replace,
        onProgress: (p) => (p.done >= p.total ? progress.finish(p.phase) : progress.update(p.phase, p.done, p.total, `${p.done}/${p.total} ids`)),
      });
      progress.stop();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      context.print(`Seeded ${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(', ')} in ${seconds} s`);
      return 0;
    } catch (error) {
      progress.stop();
      if (!(error instanceof SeedRefusedError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
  },
};
