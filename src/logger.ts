/**
 * Structured logs (pino): JSON lines for machines, or human-readable lines (pino-pretty, in-process so
 * no line is lost at exit) when `pretty` is set, which main.ts does on a terminal. Secrets never reach a log line: the redaction list covers every place a
 * credential can sit in what we log (headers, bodies of the token and key endpoints).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'password',
  '*.password',
  '*.headers.authorization',
  'clientSecret',
  '*.clientSecret',
  'accessToken',
  '*.accessToken',
  'secret_hash',
  '*.secret_hash',
  'private_jwk',
  '*.private_jwk',
];


export interface LoggerOptions {
  level: string;
  destination?: DestinationStream;
  /** Human-readable lines (colours, local time) on `destination` or stdout, instead of JSON. */
  pretty?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const destination = options.pretty
    ? PinoPretty({ destination: options.destination ?? 1, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' })
    : options.destination;
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'venture-data-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
