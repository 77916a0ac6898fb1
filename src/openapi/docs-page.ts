/**
 * `/docs`: Swagger UI (swagger-ui-dist, Apache-2.0) rendering `/openapi.json`, every asset served
 * from our own origin so the page works where browsers cannot reach the internet. Asset URLs carry a
 * version, so they can be cached for good; the page itself is revalidated.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const DOCS_ASSETS_PATH = '/docs/assets';

/** A file to stream, or the content itself. */
export type DocsAsset = { contentType: string; file: string } | { contentType: string; content: string };

export interface DocsSite {
  html: string;
  /** By file name under DOCS_ASSETS_PATH. */
  assets: ReadonlyMap<string, DocsAsset>;
}

const VENDOR_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** In a file of its own rather than inline, so a strict Content-Security-Policy can allow 'self' only. */
function initScript(documentPath: string): string {
  return `window.ui = SwaggerUIBundle(${JSON.stringify({
    url: documentPath,
    dom_id: '#docs',
    deepLinking: true,
    // The default validator badge calls validator.swagger.io: nothing may leave this origin.
    validatorUrl: null,
    layout: 'BaseLayout',
  })});\n`;
}

const versioned = (name: string, version: string): string => `${DOCS_ASSETS_PATH}/${name}?v=${encodeURIComponent(version)}`;

export function docsSite(documentPath = '/openapi.json'): DocsSite {
  const packageJson = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const init = initScript(documentPath);
  const initVersion = createHash('sha256').update(init).digest('hex').slice(0, 12);
  const assets = new Map<string, DocsAsset>(
    Object.entries(VENDOR_FILES).map(([name, contentType]) => [name, { contentType, file: join(dirname(packageJson), name) }]),
  );
  assets.set('init.js', { contentType: 'text/javascript; charset=utf-8', content: init });
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Venture Data API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${versioned('swagger-ui.css', version)}">
<link rel="stylesheet" href="${versioned('index.css', version)}">
</head>
<body>
<noscript>This page needs JavaScript. The API description itself is at <a href="${documentPath}">${documentPath}</a>.</noscript>
<div id="docs"></div>
<script src="${versioned('swagger-ui-bundle.js', version)}"></script>
<script src="${versioned('init.js', initVersion)}"></script>
</body>
</html>
`;
  return { html, assets };
}
