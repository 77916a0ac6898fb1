import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// package.json promises a Node.js range; every package the lockfile installs must run on the
// oldest Node.js in it, or npm ci warns and the server may fail at run time on that Node.
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

// Packages that want a newer Node.js but that nothing of ours loads, each with the reason.
const NEVER_LOADED: Record<string, string> = {
  'node_modules/@prisma/streams-local':
    'loaded only by the Prisma CLI command `prisma dev` (a local Prisma Postgres), which this project does not use',
};

describe('the engines package.json states', () => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;

  it('are met by every installed package, but those nothing loads', () => {
    const unmet = Object.entries(lock.packages)
      .filter(([path]) => path !== '' && !(path in NEVER_LOADED))
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node && !semver.satisfies(oldest, node) ? [`${path} wants node ${node}`] : [];
      });
    expect(unmet).toEqual([]);
  });

  it('list only packages the lockfile holds and that really want a newer Node.js', () => {
    for (const path of Object.keys(NEVER_LOADED)) {
      const entry = lock.packages[path];
      expect(entry, path).toBeDefined();
      const node = Array.isArray(entry!.engines) ? undefined : entry!.engines?.node;
      expect(node && !semver.satisfies(oldest, node), path).toBe(true);
    }
  });
});
