// Compiles the server (src/main.ts and what it imports, the generated Prisma client included) into
// dist/ as plain JavaScript, so `npm start` runs node without a TypeScript loader. esbuild, not tsc:
// it is installed with the runtime dependencies (typescript is a devDependency, absent from a
// production install), builds in well under a second (so it runs at every install and before the
// tests), and bundling removes the `.ts` import specifiers. Packages stay external: PGlite, Prisma's
// runtime and swagger-ui-dist find their own files in node_modules as usual. Splitting keeps the lazy
// imports of src/main.ts lazy (the first log lines appear before the API's module graph loads).
//
// The worker threads' files, every `.mjs` of src/ (src/db/pglite-worker.mjs, the embedded database's
// thread; src/exports/parquet-worker.mjs, an export's Parquet encoder, and the parquet-*.mjs it
// imports), are plain JavaScript the bundle loads by their path (new URL beside the module that
// starts them): they are copied as they are, side by side, not bundled.
//
// Each file is replaced by a rename, and only when it changed: a build beside running servers (the two
// test projects each build) never lets one read a half-written file.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const outdir = join(root, 'dist');
const { outputFiles } = await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  write: false,
});

for (const file of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
  if (file.isFile() && file.name.endsWith('.mjs')) outputFiles.push({ path: join(outdir, file.name), contents: readFileSync(join(file.parentPath, file.name)) });
}

mkdirSync(outdir, { recursive: true });
const unchanged = (path, contents) => {
  try {
    return Buffer.compare(readFileSync(path), contents) === 0;
  } catch {
    return false;
  }
};
for (const file of outputFiles) {
  if (unchanged(file.path, file.contents)) continue;
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
const built = new Set(outputFiles.map((file) => basename(file.path)));
for (const name of readdirSync(outdir)) if (!built.has(name) && !name.endsWith('.tmp')) rmSync(join(outdir, name), { force: true });
