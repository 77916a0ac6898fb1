// Helpers for the export tests: ask for an export, wait for it, download its files, read them back.
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TestCredentials } from '../../helpers/auth.ts';

export interface ExportBody {
  id: number;
  status: string;
  cursor: string | null;
  rows_written: number;
  progress: number;
  columns: { name: string; type: string }[];
  files: { n: number; url: string; bytes: number; sha256: string; rows: number }[];
  error: { code: string; message: string } | null;
  finished_at: string | null;
  expires_at: string | null;
}

export async function createExport(auth: TestCredentials, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<ExportBody> {
  const response = await auth.fetch('/api/exports', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(202);
  const created = ((await response.json()) as { data: ExportBody }).data;
  expect(response.headers.get('location')).toBe(`/api/exports/${created.id}`);
  return created;
}

export async function waitForExport(auth: TestCredentials, id: number, timeoutMs = 30_000): Promise<ExportBody> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await auth.fetch(`/api/exports/${id}`);
    expect(response.status).toBe(200);
    const current = ((await response.json()) as { data: ExportBody }).data;
    if (!['queued', 'running'].includes(current.status)) return current;
    if (Date.now() > until) throw new Error(`export ${id} still ${current.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function download(auth: TestCredentials, url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const response = await auth.fetch(url, { headers });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** Every file of a finished export, concatenated in order, as text lines (gunzipped) or raw bytes. */
export async function fileBytes(auth: TestCredentials, done: ExportBody): Promise<Buffer[]> {
  const files = [];
  for (const file of done.files) {
    const { status, bytes } = await download(auth, file.url);
    expect(status).toBe(200);
    files.push(bytes);
  }
  return files;
}

export const ndjsonRows = (files: Buffer[]): Record<string, unknown>[] =>
  files.flatMap((file) => gunzipSync(file).toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));

/** Every record of a list, following its cursor. */
export async function listAll(auth: TestCredentials, path: string, query = ''): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const response = await auth.fetch(`${path}?limit=500${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { data: Record<string, unknown>[]; page: { next_cursor: string | null } };
    rows.push(...body.data);
    cursor = body.page.next_cursor;
  } while (cursor);
  return rows;
}
