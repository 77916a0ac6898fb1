/**
 * One process per embedded database. PGlite has no server to arbitrate between processes: two opening
 * one data directory both write to it, hand out the same ids and corrupt indexes. So the directory
 * gets a lock file holding its owner's pid; a second process refuses to open it, naming the owner. A
 * lock left by a process that no longer exists (a crash, kill -9) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

interface Owner {
  pid: number;
  host: string;
  command: string;
  since: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): Owner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Owner;
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
}

/** Takes the directory's lock or throws DataDirLockedError; returns the release function. */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'owner.lock');
  const me: Owner = { pid: process.pid, host: hostname(), command: process.argv.slice(1).join(' '), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return () => {
        if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(path);
    // A lock from another host (a shared disk) cannot be checked from here: it is respected.
    if (owner && (owner.host !== me.host || isAlive(owner.pid)) && owner.pid !== process.pid) {
      throw new DataDirLockedError(
        `The embedded database in ${dir} is in use by process ${owner.pid} on ${owner.host} (${owner.command}, since ${owner.since}). ` +
          'Stop that process first, or point both at a PostgreSQL server with DATABASE_URL.',
      );
    }
    rmSync(path, { force: true }); // stale: its owner is gone
  }
  throw new DataDirLockedError(`Could not take the lock on ${path}`);
}
