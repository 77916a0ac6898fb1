// `npm run cli -- --help` and `npm run cli -- <command> --help` print help and exit 0, without a
// database or any configuration; an unknown command is still a usage error (64).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const COMMAND_NAMES = ['migrate', 'import', 'seed', 'key:create', 'token:user', 'keys:rotate-signing', 'print-schema'];

function cli(...args: string[]) {
  // No DATABASE_URL or DATA_DIR: help must not need them.
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cli help', () => {
  it('--help lists every command and exits 0', () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { code, stdout } = cli(flag);
      expect(code, flag).toBe(0);
      expect(stdout).toMatch(/^Usage: npm run cli -- <command>/);
      for (const name of COMMAND_NAMES) expect(stdout, name).toContain(`  ${name}`);
    }
  });

  it('<command> --help prints that command\'s usage and exits 0 without touching a database', () => {
    for (const name of ['key:create', 'seed', 'import']) {
      const { code, stdout } = cli(name, '--help');
      expect(code, name).toBe(0);
      expect(stdout, name).toMatch(new RegExp(`^Usage: npm run cli -- ${name}`));
    }
  });

  it('an unknown command is a usage error', () => {
    const { code, stderr } = cli('frobnicate');
    expect(code).toBe(64);
    expect(stderr).toContain('Unknown command: frobnicate');
  });
});
