/**
 * The layers of src/ and the rule that imports point down them (`npm run lint:deps`). Only imports
 * that exist at run time count: a type-only import (`import type`, or braces of `type` names only)
 * is erased before the code runs, so `tsPreCompilationDeps: false` leaves it out of the graph.
 *
 * From the top: the composition root, the HTTP adapters, the transports, the assembled GraphQL
 * schema, the operations, the resource schema, then the data layers and the support every layer may
 * use. A module may import its own layer and any layer below it; sideways imports inside a layer
 * are fine as long as they make no cycle, between files or between folders.
 */
const LAYERS = [
  { name: 'composition', path: ['src/app\\.ts', 'src/background\\.ts', 'src/main\\.ts', 'src/startup\\.ts', 'src/cli/'] },
  { name: 'adapters', path: ['src/http/', 'src/openapi/'] },
  { name: 'transports', path: ['src/rest/', 'src/graphql/', 'src/mcp/'] },
  // Imports every resource file in order, so it sits above the operations whose fields it registers.
  { name: 'api-schema', path: ['src/api-schema\\.ts'] },
  // An operation's GraphQL fields live beside it (`*-schema.ts`), on the builder from src/schema/.
  { name: 'operations', path: ['src/compile/', 'src/aggregate/', 'src/changes/', 'src/management/', 'src/usage/', 'src/data/'] },
  { name: 'schema', path: ['src/schema/'] },
  { name: 'auth', path: ['src/auth/'] },
  { name: 'db', path: ['src/db/'] },
  { name: 'values', path: ['src/values/', 'src/sql/'] },
  { name: 'filter', path: ['src/filter/'] },
  { name: 'support', path: ['src/errors\\.ts', 'src/config\\.ts', 'src/logger\\.ts', 'src/package-root\\.ts'] },
];

/**
 * TEMPORARY: upward imports of the request pipeline (http/, rest/, graphql/, mcp/, openapi/), which
 * is being rewritten into one pipeline. Each entry is one file and the files above it that it may
 * still import; remove an entry when its import is gone. Nothing may be added here.
 */
const PIPELINE_ALLOWANCES = {
  'src/rest/csv-export.ts': ['src/http/access-log.ts'],
  'src/rest/express.ts': ['src/http/client-gone.ts', 'src/http/header-bag.ts', 'src/http/json-body.ts'],
  'src/graphql/use-compiled-reads.ts': ['src/http/metrics.ts'],
  'src/mcp/rest-call.ts': ['src/http/header-bag.ts'],
};
/** TEMPORARY, for the same rewrite: folder cycles among these folders only (http → rest → http ...). */
const PIPELINE_FOLDERS = ['src/http', 'src/rest', 'src/graphql', 'src/mcp', 'src/openapi'];

const anyOf = (paths) => `^(${paths.join('|')})`;
const exactly = (files) => `^(${files.map((file) => file.replace(/\./g, '\\.')).join('|')})$`;

/** One rule per layer: nothing in it imports a layer above it. */
function upwardRules() {
  const allowed = Object.keys(PIPELINE_ALLOWANCES);
  return LAYERS.slice(1).flatMap((layer, index) => {
    const above = anyOf(LAYERS.slice(0, index + 1).flatMap((upper) => upper.path));
    const rule = (from, to) => ({
      name: `${layer.name}-imports-upward`,
      comment: `${layer.name} may import only its own layer and the layers below it (.dependency-cruiser.cjs, LAYERS)`,
      severity: 'error',
      from,
      to,
    });
    const own = allowed.filter((file) => new RegExp(anyOf(layer.path)).test(file));
    return [
      rule({ path: anyOf(layer.path), ...(own.length ? { pathNot: exactly(own) } : {}) }, { path: above }),
      ...own.map((file) => rule({ path: exactly([file]) }, { path: above, pathNot: exactly(PIPELINE_ALLOWANCES[file]) })),
    ];
  });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      comment: 'A runtime import cycle between files: module evaluation order then decides what is defined',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'Folders that import each other at run time are one layer in disguise',
      severity: 'error',
      scope: 'folder',
      from: { pathNot: `^(${PIPELINE_FOLDERS.join('|')})$` },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'Every module of src/ belongs to a layer (.dependency-cruiser.cjs, LAYERS)',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(LAYERS.flatMap((layer) => layer.path)) },
      to: {},
    },
    ...upwardRules(),
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: '^src/db/generated/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
