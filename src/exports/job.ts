/**
 * Running one export. The changes feed's head is read first: that is the export's `cursor`, and every
 * row read after it is at least as new, so the files plus the changes after the cursor give the data
 * as it is now. Rows come from the REST list itself, as the export's creator (the same statement,
 * filter, fields and permissions), in pages of EXPORT_PAGE_ROWS over windows of ids, EXPORT_READERS at
 * once: each page a short statement, so the embedded database's one connection is never held long.
 * An incremental export (`since`) reads the ids its resource's changes name between `since` and the
 * head, a page at a time, and the list's rows among them; an id the list no longer returns (deleted,
 * or no longer matching) is a tombstone.
 */
import type { GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/principal.ts';
import { afterPlaceSql, decodePlace, encodePlace, endOf, isBefore } from '../changes/cursor.ts';
import type { SqlClient } from '../db/client.ts';
import { exportColumns } from './columns.ts';
import { listQuery, type ReadList } from './create.ts';
import { FileSink } from './file-sink.ts';
import { dropFiles, renewLease, storeFile, storePart, underLease, type Lease, type StoredFile } from './file-store.ts';
import { materialize } from '../compile/json-text.ts';
import { amongIdsInParts, withinIds } from './narrow.ts';
import { changeResourceOf, listPath, type ExportFormat, type ExportResource } from './resources.ts';
import type { ExportRow } from './store.ts';
import { fileWriter, type FileWriter, type Row } from './writers.ts';

export interface JobDeps {
  sql: SqlClient;
  schema: GraphQLSchema;
  readList: ReadList;
  /** A file holds at most this many rows (1,000,000; tests set fewer). */
  maxFileRows: number;
  /** Rows per keyset page (EXPORT_PAGE_ROWS). */
  pageRows: number;
  /** Statements one export runs at once, over separate ranges of ids (EXPORT_READERS; 1 when absent). */
  readers?: number;
  /** The requests the instance is serving: each read waits until none is in flight (at most FOREGROUND_PATIENCE_MS). */
  foreground?: Foreground;
  /** True once the instance shuts down: the job stops between pages (and is redone by the next runner). */
  stopping?: () => boolean;
}

/** Requests in flight on this instance (src/http/serving.ts). */
export interface Foreground {
  idle(patienceMs: number): Promise<void>;
  quiet(ms: number): boolean;
}

/**
 * How long a read waits for the instance's requests to end: an export is background work, so a
 * client's read never queues behind a window's statement started while it was being served; under
 * requests that never stop, each read still starts after this long.
 */
const FOREGROUND_PATIENCE_MS = 50;

/**
 * An export runs its readers at once only while the instance serves no traffic (Serving.quiet):
 * requests closer together than this are traffic, and the export then reads one window at a time,
 * leaving the other cores to them; a client polling its export's status every 250 ms is not.
 */
const QUIET_MS = 100;

/** The instance is shutting down: the job stopped between two pages. */
export class Stopped extends Error {
  override readonly name = 'Stopped';
}

/** The export failed for a reason its client should read (the list refused, the cursor expired). */
export class ExportFailed extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

const principalOf = (row: ExportRow): Principal => ({
  subject: row.principal.subject,
  kind: row.principal.kind,
  clientId: row.principal.clientId,
  ...(row.principal.apiKey ? { apiKey: row.principal.apiKey } : {}),
  orgId: row.org_id,
  permissions: new Set(row.principal.permissions),
});

/** Runs the export to its last file; returns the rows written. Throws LeaseLost if another runner took it. */
export async function runExport(deps: JobDeps, row: ExportRow, lease: Lease): Promise<number> {
  const resource = row.resource as ExportResource;
  const columns = exportColumns(deps.schema, resource, row.fields);
  const head = await deps.sql.transaction(async (tx) => {
    await renewLease(tx, lease, 0);
    // A job redone after its runner was lost starts again from nothing: no file is written twice.
    await dropFiles(tx, lease.exportId);
    const [clock] = await tx.query<{ position: string }>('SELECT position::text FROM change_clock');
    const position = BigInt(clock!.position);
    await tx.query('UPDATE exports SET cursor = $2, columns = $3 WHERE id = $1', [lease.exportId, encodePlace(endOf(position)), JSON.stringify(columns)]);
    return position;
  });
  const files = new FileRoller(deps, lease, row.format as ExportFormat, columns, row.since !== null);
  const principal = principalOf(row);
  const pages = row.since === null ? fullPages(deps, principal, row) : changedPages(deps, principal, row, resource, head);
  try {
    for await (const rows of pages) {
      if (deps.stopping?.()) throw new Stopped(`export ${row.id} stopped for a shutdown`);
      await files.write(rows);
    }
    await files.end();
  } finally {
    await files.dispose();
  }
  return files.rows;
}

interface Page {
  data: Row[];
  next: string | null;
}

async function readPage(deps: JobDeps, principal: Principal, resource: string, query: Record<string, string>): Promise<Page> {
  const answer = await deps.readList(principal, listPath(resource as ExportResource), query);
  if (answer.status !== 200) {
    const error = (materialize(answer.body) as { error?: { code: string; message: string } }).error;
    throw new ExportFailed(error?.code ?? 'INTERNAL_ERROR', error?.message ?? `The list answered ${answer.status}`);
  }
  const body = answer.body as { data: Row[]; page: { next_cursor?: string | null } };
  return { data: body.data, next: body.page.next_cursor ?? null };
}

/**
 * Every row of the list, in id order. The ids from the list's first to its last are cut into windows
 * of about 80% of a page of rows each (from the list's estimated total), each read by its own short
 * statement, `readers` at a time while the instance is quiet and one under traffic (QUIET_MS): a read
 * that ends starts the next at once, whatever the writing is doing, until twice `readers` windows
 * wait to be written. They are written in order. A window that
 * holds more than a page is read on with its cursor when its turn comes, and makes the next windows
 * narrower; one that holds less than half of what it aimed at makes them wider.
 */
async function* fullPages(deps: JobDeps, principal: Principal, row: ExportRow): AsyncGenerator<Row[]> {
  const read = (query: Record<string, string>) => readPage(deps, principal, row.resource, query);
  const edge = async (sort: string): Promise<number | undefined> => {
    const page = await read({ ...listQuery({ filter: row.filter ?? undefined, fields: ['id'] }), sort, limit: '1' });
    return (page.data[0] as { id: number } | undefined)?.id;
  };
  const first = await edge('id');
  const last = first === undefined ? undefined : await edge('-id');
  if (first === undefined || last === undefined) return;
  const span = last - first + 1;
  const readers = deps.readers ?? 1;
  const query = (filter: string, cursor?: string): Record<string, string> => ({
    filter,
    ...(row.fields ? { fields: row.fields.join(',') } : {}),
    sort: 'id',
    limit: String(deps.pageRows),
    ...(cursor ? { cursor } : {}),
  });
  // Windows aim at 80% of a page: one that overflows costs a second statement for its last rows.
  const aim = Math.max(1, Math.floor(deps.pageRows * 0.8));
  let width = Math.max(1, Math.floor((span * aim) / Math.max(aim, row.rows_estimated ?? 0)));
  let from = first;
  let running = 0;
  let stopped = false;
  const windows: Promise<Page & { filter: string }>[] = [];
  const launch = (): void => {
    const atOnce = deps.foreground && !deps.foreground.quiet(QUIET_MS) ? 1 : readers;
    while (!stopped && running < atOnce && windows.length < 2 * readers && from <= last) {
      const filter = withinIds(row.filter, from, Math.min(last, from + width - 1));
      from += width;
      running += 1;
      const reading = (deps.foreground?.idle(FOREGROUND_PATIENCE_MS) ?? Promise.resolve())
        .then(() => read(query(filter)))
        .then((answer) => {
          if (answer.next) width = Math.max(1, Math.floor(width / 2));
          else if (answer.data.length < aim / 2) width = Math.min(span, width * 2);
          return { ...answer, filter };
        })
        // Counted out before whoever awaits the window resumes: the writing's own launch then sees the
        // reader free, and an empty window is never the last one launched while ids remain.
        .finally(() => {
          running -= 1;
        });
      // A window read ahead must not reject unheard when the writing stops first (a lost lease); a
      // read that ends starts the next at once, whatever the writing is doing.
      reading.catch(() => undefined).then(launch);
      windows.push(reading);
    }
  };
  try {
    launch();
    while (windows.length) {
      let answer: Page & { filter: string } = await windows.shift()!;
      launch();
      if (answer.data.length) yield answer.data;
      while (answer.next) {
        answer = { ...(await read(query(answer.filter, answer.next))), filter: answer.filter };
        if (answer.data.length) yield answer.data;
      }
    }
  } finally {
    stopped = true;
  }
}

/** The latest state of each record changed after `since` up to `head`, and a tombstone for each the list no longer has. */
async function* changedPages(deps: JobDeps, principal: Principal, row: ExportRow, resource: ExportResource, head: bigint): AsyncGenerator<Row[]> {
  const since = decodePlace(row.since!, 'since');
  // Retention may have pruned past `since` while the export waited in the queue: its changes are gone.
  const [retention] = await deps.sql.query<{ pruned: string }>('SELECT position::text AS pruned FROM change_retention');
  if (isBefore(since, endOf(BigInt(retention!.pruned)))) {
    throw new ExportFailed('CURSOR_EXPIRED', 'The changes after `since` were pruned (CHANGES_RETENTION_DAYS) before the export ran; export everything again');
  }
  let after = 0;
  for (;;) {
    const ids = (
      await deps.sql.query<{ object_id: number }>(
        `SELECT DISTINCT c.object_id FROM change_commits cc JOIN changes c ON c.xid = cc.xid AND ${afterPlaceSql('$4::bigint', '$5::text', '$6::int')}
          WHERE c.resource = $1 AND cc.position <= $2 AND c.object_id > $3 AND cc.position >= $4
          ORDER BY c.object_id LIMIT $7`,
        [changeResourceOf(resource), String(head), after, String(since.position), since.resource, since.objectId, deps.pageRows],
      )
    ).map((change) => change.object_id);
    if (!ids.length) return;
    after = ids.at(-1)!;
    const data: Record<string, unknown>[] = [];
    for (const filter of amongIdsInParts(row.filter, ids)) {
      const query = { ...listQuery({ filter, fields: row.fields ?? undefined }), limit: String(deps.pageRows) };
      for (const record of (await readPage(deps, principal, row.resource, query)).data) data.push(materialize(record) as Record<string, unknown>);
    }
    const present = new Set(data.map((record) => record.id as number));
    const tombstones = ids.filter((id) => !present.has(id)).map((id) => ({ id, _deleted: true }));
    yield [...data, ...tombstones].sort((a, b) => (a.id as number) - (b.id as number));
  }
}

/** Writes rows into files of at most `maxFileRows`, each stored under the lease as it goes. */
class FileRoller {
  rows = 0;
  #n = 0;
  #fileRows = 0;
  #current: { writer: FileWriter; sink: FileSink; n: number } | undefined;

  constructor(
    private readonly deps: JobDeps,
    private readonly lease: Lease,
    private readonly format: ExportFormat,
    private readonly columns: ReturnType<typeof exportColumns>,
    private readonly tombstones: boolean,
  ) {}

  async write(rows: readonly Row[]): Promise<void> {
    let start = 0;
    while (start < rows.length) {
      const file = this.#current ?? this.#open();
      const take = Math.min(rows.length - start, this.deps.maxFileRows - this.#fileRows);
      await file.writer.write(rows.slice(start, start + take));
      start += take;
      this.#fileRows += take;
      this.rows += take;
      if (this.#fileRows >= this.deps.maxFileRows) await this.#close();
    }
  }

  /** Closes the last file; an export with no rows still has one (empty) file. */
  async end(): Promise<void> {
    if (this.#current || this.#n === 0) await this.#close(this.#current ?? this.#open());
  }

  /** Lets go of an unfinished file's writer (a job that stopped or failed). */
  async dispose(): Promise<void> {
    await this.#current?.writer.dispose();
    this.#current = undefined;
  }

  #open() {
    this.#n += 1;
    this.#fileRows = 0;
    const n = this.#n;
    const sink = new FileSink((part, offset, data) =>
      underLease(this.deps.sql, this.lease, this.rows, (tx) => storePart(tx, this.lease.exportId, n, part, offset, data)).then(() => undefined),
    );
    this.#current = { writer: fileWriter(this.format, this.columns, sink, this.tombstones), sink, n };
    return this.#current;
  }

  async #close(file = this.#current!): Promise<void> {
    await file.writer.end();
    const { bytes, sha256 } = await file.sink.close();
    const stored: StoredFile = { n: file.n, bytes, sha256, rows: this.#fileRows };
    await underLease(this.deps.sql, this.lease, this.rows, (tx) => storeFile(tx, this.lease.exportId, stored));
    this.#current = undefined;
  }
}
