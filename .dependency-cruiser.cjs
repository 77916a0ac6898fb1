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
  { name: 'operations', path: ['src/compile/', 'src/aggregate/', 'src/changes/', 'src/management/', 'src/usage/', 'src/data/', 'src/search/', 'src/match/', 'src/exports/'] },
  { name: 'schema', path: ['src/schema/'] },
  { name: 'auth', path: ['src/auth/'] },
  { name: 'db', path: ['src/db/'] },
  { name: 'values', path: ['src/values/', 'src/sql/'] },
  { name: 'filter', path: ['src/filter/'] },
  // How a website or an external id is written the one way every layer compares it (filters, import, search, match).
  { name: 'identifiers', path: ['src/identifiers/'] },
  { name: 'support', path: ['src/errors\\.ts', 'src/config\\.ts', 'src/logger\\.ts', 'src/package-root\\.ts', 'src/tally\\.ts', 'src/header-bag\\.ts', 'src/maybe-promise\\.ts'] },
];

const anyOf = (paths) => `^(${paths.join('|')})`;

/** One rule per layer: nothing in it imports a layer above it. */
function upwardRules() {
  return LAYERS.slice(1).map((layer, index) => ({
    name: `${layer.name}-imports-upward`,
    comment: `${layer.name} may import only its own layer and the layers below it (.dependency-cruiser.cjs, LAYERS)`,
    severity: 'error',
    from: { path: anyOf(layer.path) },
    to: { path: anyOf(LAYERS.slice(0, index + 1).flatMap((upper) => upper.path)) },
  }));
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
      from: {},
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
