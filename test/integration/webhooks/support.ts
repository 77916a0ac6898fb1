// Webhook receivers on this machine (real HTTP servers) and a few helpers for the webhook tests.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The Host header: which name the deliverer asked for. */
  host: string | undefined;
}

/** How a receiver answers one request: a status, or `hang` (never answers), or `close` (drops the connection). */
export type Answer = number | 'hang' | 'close';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Sets the answers: one per request in turn, the last repeating. */
  answer(...answers: Answer[]): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  let answers: Answer[] = [200];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), host: req.headers.host });
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (answer === 'hang') hanging.add(res);
      else if (answer === 'close') req.socket.destroy();
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    answer: (...next) => {
      answers = next;
    },
    waitFor: (count, timeoutMs = 20_000) => waitUntil(() => received.length >= count, timeoutMs, `${count} requests (got ${received.length})`).then(() => received),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Settings for tests that deliver to receivers on 127.0.0.1, with short delays. */
export const DELIVERY_ENV = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '150,150,150',
  WEBHOOK_TIMEOUT_MS: '600',
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_POLL_INTERVAL_MS: '50',
};

export async function createWebhook(credentials: TestCredentials, body: Record<string, unknown>) {
  const response = await call(credentials, 'POST', '/api/webhooks', { events: ['entity.created'], ...body });
  if (response.status !== 201) throw new Error(`webhook not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as { id: number; secret: string; url: string };
}

/** The webhook's delivery log (attempts, newest first). */
export async function deliveryLog(credentials: TestCredentials, webhookId: number) {
  const response = await call(credentials, 'GET', `/api/webhooks/${webhookId}/deliveries?limit=2000`);
  if (response.status !== 200) throw new Error(`log not read: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as {
    id: number; delivery_id: number; event_id: string; event_type: string; attempted_at: string;
    response_status: number | null; error: string | null; duration_ms: number; next_attempt_at: string | null; delivery_status: string;
  }[];
}
