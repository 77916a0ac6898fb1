// GraphiQL and /docs in a real headless Chromium: the pages load from our own origin, GraphiQL's docs
// fill in without a token (the aggregate field with its descriptions among them), a pasted token runs a
// query that returns rows, and /docs lists the operations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { chromiumInstalled, launchChromium, NO_BROWSER_MESSAGE } from './chromium.ts';

const hasBrowser = chromiumInstalled();
if (!hasBrowser) console.warn(NO_BROWSER_MESSAGE);

let app: TestApp;
let auth: TestCredentials;
let browser: Browser;

beforeAll(async () => {
  if (!hasBrowser) return;
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 30 });
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A page that fails the test on any request leaving our origin. */
async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(app.url) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  page.on('close', () => expect(foreign, 'requests to other hosts').toEqual([]));
  return page;
}

/** Replaces a Monaco editor's text as a user pasting would: focus, select all, insert. */
async function replaceEditorText(page: Page, editor: string, text: string): Promise<void> {
  await page.locator(editor).first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe.runIf(hasBrowser)('GraphiQL in Chromium', () => {
  it('shows the schema docs without a token, then runs a query once the token is pasted', async () => {
    // A search by part of a name, in another case, as a person types it.
    const entity = ((await (await auth.fetch('/api/entities?limit=1&sort=name')).json()) as { data: { id: number; name: string }[] }).data[0]!;
    const page = await openPage();
    await page.goto(`${app.url}/graphql`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });

    // The docs explorer fills from introspection, sent with the placeholder headers: no error, no re-fetch.
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    const explorer = page.getByLabel('Documentation Explorer', { exact: true });
    await expect.poll(() => explorer.textContent(), { timeout: 30_000 }).toMatch(/Query/);
    await explorer.getByText('Query', { exact: true }).first().click();
    await expect.poll(() => explorer.textContent(), { timeout: 10_000 }).toMatch(/entities/);
    // The aggregate root field (docs/aggregates.md) with its description and its arguments' descriptions.
    await explorer.getByText('aggregate', { exact: true }).first().click();
    await expect.poll(() => explorer.textContent(), { timeout: 10_000 }).toMatch(/How much, by what/);
    expect(await explorer.textContent()).toMatch(/groupBy.*Up to 3 comma-separated dimensions/s);

    // Paste the token into the Headers tab, as the default query tells the user to.
    await page.getByRole('button', { name: /^Headers$/ }).click();
    await replaceEditorText(page, '.monaco-editor[data-uri*="headers"]', JSON.stringify({ Authorization: `Bearer ${auth.token}`, 'X-Client-Id': auth.clientId }));
    const part = entity.name.slice(0, Math.max(3, Math.ceil(entity.name.length / 2))).toUpperCase();
    const query = `{ entities(filter: ${JSON.stringify(`name[contains]:${JSON.stringify(part)}`)}, limit: 5) { data { id name } } }`;
    await replaceEditorText(page, '.graphiql-query-editor .monaco-editor', query);
    await page.getByRole('button', { name: /Execute query/i }).click();

    // Monaco renders spaces as no-break spaces; compare the text as a reader sees it.
    const result = async () => ((await page.getByLabel('Result Window', { exact: true }).textContent()) ?? '').replace(/\s+/g, ' ');
    await expect.poll(result, { timeout: 30_000 }).toContain('"data"');
    const names = [...(await result()).matchAll(/"name": "([^"]*)"/g)].map((match) => match[1]!);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name.toUpperCase()).toContain(part);
    expect(await result()).not.toContain('"errors"');
    await page.close();
  }, 120_000);
});

describe.runIf(hasBrowser)('/docs in Chromium', () => {
  it('renders the reference with the operations, from our own origin', async () => {
    const page = await openPage();
    await page.goto(`${app.url}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((text) => text.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/api/entities', '/api/entities/{id}', '/oauth/token']));
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await page.close();
  }, 120_000);
});
