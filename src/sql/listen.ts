/**
 * LISTEN on a PostgreSQL channel over a connection of its own (a pooled one would be handed to other
 * work), reconnecting after a loss. The handlers hear when notifications can be trusted (`onReady`,
 * after LISTEN succeeded, again after each reconnection) and when they cannot (`onLost`): anything
 * sent in between was missed, so what they guard must be re-read from the database.
 */
import pg from 'pg';
import type { PGliteInterface } from '@electric-sql/pglite';

export interface NotificationHandlers {
  onNotification(payload: string): void;
  onReady(): void;
  onLost(error: unknown): void;
}

export interface Subscription {
  close(): Promise<void>;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

export function listenPostgres(config: pg.ClientConfig, channel: string, handlers: NotificationHandlers): Subscription {
  let closed = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = RETRY_MIN_MS;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const client = new pg.Client(config);
    current = client;
    let lost = false;
    const onLost = (error: unknown) => {
      if (lost || closed) return;
      lost = true;
      current = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      handlers.onLost(error);
      retry = setTimeout(() => void connect(), delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    };
    client.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('notification connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
      if (lost || closed) return;
      delay = RETRY_MIN_MS;
      handlers.onReady();
    } catch (error) {
      onLost(error);
    }
  };
  void connect();

  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      const client = current;
      current = undefined;
      if (client) {
        client.removeAllListeners();
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
      }
    },
  };
}

/** The embedded database: one process, so its own notifications are all there is to hear. */
export function listenPglite(pglite: Pick<PGliteInterface, 'listen'>, channel: string, handlers: NotificationHandlers): Subscription {
  const unsubscribe = pglite.listen(channel, (payload) => handlers.onNotification(payload)).then(
    (stop) => {
      handlers.onReady();
      return stop;
    },
    (error: unknown) => {
      handlers.onLost(error);
      return undefined;
    },
  );
  return { close: async () => void (await (await unsubscribe)?.()) };
}
