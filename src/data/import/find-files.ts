import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ImportError } from './import-error.ts';
import { IMPORT_RESOURCES, type ImportResource } from './types.ts';

export interface ImportFile {
  resource: ImportResource;
  /** File name inside the directory (what messages show). */
  name: string;
  path: string;
}

/** The directory's import files in load order; a resource may have `.jsonl` or `.jsonl.gz`, not both. */
export async function findImportFiles(dir: string): Promise<ImportFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new ImportError(dir, `cannot read the directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const files: ImportFile[] = [];
  for (const resource of IMPORT_RESOURCES) {
    const found = [`${resource}.jsonl`, `${resource}.jsonl.gz`].filter((name) => names.includes(name));
    if (found.length > 1) throw new ImportError(dir, `both ${found.join(' and ')} exist; keep one`);
    const name = found[0];
    if (name) files.push({ resource, name, path: join(dir, name) });
  }
  if (files.length === 0) {
    const expected = IMPORT_RESOURCES.map((resource) => `${resource}.jsonl`).join(', ');
    throw new ImportError(dir, `no import files found (expected some of ${expected}, optionally .gz)`);
  }
  return files;
}
