/** The GraphQL context, built per request by app.ts for both transports. */
import type { CancelSignal, PrismaClient, SqlClient } from '../db/client.ts';
import type { Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../changes/secret-box.ts';
import type { UrlPolicy } from '../changes/webhook-url.ts';
import type { HeaderBag } from '../header-bag.ts';
import type { AggregateExportReceiver } from '../aggregate/export.ts';
import type { ReadList } from '../exports/create.ts';

export interface GraphQLContext {
  /** Used only through the Pothos Prisma plugin and the resource query helpers. */
  readonly prisma: PrismaClient;
  /** The compiled reads' statements (src/compile), on the same connections as Prisma's. */
  readonly sql: Pick<SqlClient, 'prepared' | 'stream'>;
  /** Aborted when the client leaves before the answer: a compiled read then cancels its statement. */
  readonly signal?: CancelSignal | undefined;
  readonly principal: Principal | null;
  readonly requestId: string;
  readonly logger: Logger;
  /** Headers for the HTTP response, e.g. `Deprecation: true` when a legacy filter operator was used. */
  readonly responseHeaders: HeaderBag;
  /** Set for a CSV export of an aggregate (src/aggregate/export.ts): its statement is handed there, not run. */
  readonly exportAggregate?: AggregateExportReceiver | undefined;
  /** The current time; tests pass a clock they control (invitation expiry). */
  readonly clock: () => Date;
  /** Above this many expected matches, list totals are estimates (EXACT_TOTAL_LIMIT, src/sql/count.ts). */
  readonly exactTotalLimit?: number;
  /** Where webhooks may point (WEBHOOK_ALLOW_PRIVATE_URLS) and how their secrets are stored (WEBHOOK_SECRET_KEY). */
  readonly webhooks: { readonly urls: UrlPolicy; readonly secrets: SecretBox };
  /** Exports (src/exports): the list read as a principal, and the worker woken for a new export. */
  readonly exports?: { readonly sql: SqlClient; readonly readList: ReadList; wake(): void };
}
