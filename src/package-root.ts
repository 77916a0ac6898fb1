/**
 * Files the service reads at run time (migrations, the demo data, the prepared operations, package.json)
 * are found from the package root, not from the module asking: the same code runs from src/ (tsx, tests)
 * and bundled into dist/ (npm start), at different depths. The root is the nearest folder up with a
 * package.json; dist/ has none of its own.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** An absolute path inside the package, from a path relative to its root (`prisma/migrations`). */
export const packagePath = (relative: string): string => join(PACKAGE_ROOT, relative);
