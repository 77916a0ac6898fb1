/**
 * The GraphiQL page. @graphql-yoga/render-graphiql inlines its whole bundle (about 9 MB) into every
 * page; here the page is small and the bundle, stylesheet and editor workers are separate assets under
 * GRAPHIQL_ASSETS_PATH whose URLs carry a content hash, so browsers cache them for good and pages
 * only revalidate the few hundred bytes that change. All of it is served from our own origin, so the
 * page works on networks that cannot reach the internet.
 */
import { createHash } from 'node:crypto';
import { css, editorWorkerService, graphqlWorker, js, jsonWorker } from '@graphql-yoga/render-graphiql/graphiql';
import type { DocsAsset } from '../openapi/index.ts';

export const GRAPHIQL_ASSETS_PATH = '/graphiql/assets';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

export interface GraphiQLSite {
  /** The page a browser gets for GET /graphql. */
  page: string;
  /** By file name under GRAPHIQL_ASSETS_PATH. */
  assets: ReadonlyMap<string, DocsAsset>;
}

const GRAPHIQL_HEADERS = JSON.stringify({ Authorization: 'Bearer <access token>', 'X-Client-Id': '<client id>' }, null, 2);

const GRAPHIQL_QUERY = `# Welcome to the Venture Data API.
#
# The Docs panel (book icon, top left) and autocompletion work without a token.
# To run queries, paste your access token into the Headers tab below this
# editor: replace <access token> and <client id> (the client id the token was
# issued to). Get a token with POST /oauth/token (see /docs, "auth").
# Then press the run button (or Ctrl-Enter):
{
  entities(filter: "name[contains]:airbnb", limit: 2) {
    data { id name hq_country tags { name } founders { name } }
    page { limit offset next_cursor }
  }
}
`;

/** What GraphiQL opens with: the endpoint is its default, /graphql. */
const GRAPHIQL_OPTIONS = { title: 'Venture Data API', defaultQuery: GRAPHIQL_QUERY, headers: GRAPHIQL_HEADERS, shouldPersistHeaders: true };

const hashOf = (content: string): string => createHash('sha256').update(content).digest('hex').slice(0, 12);

/** `<` escaped so that no string in the options can close the script element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

export function graphiqlSite(): GraphiQLSite {
  const files: Record<string, { contentType: string; content: string }> = {
    'graphiql.css': { contentType: 'text/css; charset=utf-8', content: css },
    'graphiql.js': { contentType: JAVASCRIPT, content: js },
    'editor.worker.js': { contentType: JAVASCRIPT, content: editorWorkerService },
    'json.worker.js': { contentType: JAVASCRIPT, content: jsonWorker },
    'graphql.worker.js': { contentType: JAVASCRIPT, content: graphqlWorker },
  };
  const url = Object.fromEntries(
    Object.entries(files).map(([name, file]) => [name, `${GRAPHIQL_ASSETS_PATH}/${name}?v=${hashOf(file.content)}`]),
  ) as Record<keyof typeof files, string>;
  // Monaco asks for its workers by label; the names are the ones render-graphiql registers.
  const workers = { editorWorkerService: url['editor.worker.js'], json: url['json.worker.js'], graphql: url['graphql.worker.js'] };
  return {
    assets: new Map(Object.entries(files)),
    page: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Venture Data API: GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url['graphiql.css']}">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript. The API reference is at <a href="/docs">/docs</a>.</noscript>
<div id="root"></div>
<script>
const workers = ${scriptJson(workers)};
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };
</script>
<script src="${url['graphiql.js']}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(GRAPHIQL_OPTIONS)});</script>
</body>
</html>
`,
  };
}
