/**
 * `npm run bench:graphql-over-http`: what GraphQL over HTTP's request handling costs per request, in
 * one process, with the operation itself taken out: each server answers a known document with a fixed
 * result from its hook (yoga's `onParams`/`setResult`, as src/graphql/use-operation-runner.ts does;
 * graphql-http's `onSubscribe`). What remains is reading the parameters, the plugin chain, content
 * negotiation and writing the result: the share of a /graphql read that is neither ours nor the
 * database's. A diagnostic for choosing /graphql's HTTP layer (bench/README.md, "GraphQL over HTTP's
 * cost"); the figures to quote for users are bench/run.ts's.
 *
 * BENCH_REQUESTS (20000) per round, BENCH_ROUNDS (3).
 */
import { buildSchema, type ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-http';
import { createYoga, type Plugin } from 'graphql-yoga';
import { useArmor } from '../src/graphql/use-armor.ts';
import { createErrorMasker, useValidationErrorCode } from '../src/graphql/mask-error.ts';
import { createLogger } from '../src/logger.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const schema = buildSchema('type Query { a: Int }');
const result: ExecutionResult = { data: { a: 1 } };
const body = { query: '{ a }' };
const headers: Record<string, string> = {
  host: '127.0.0.1',
  'content-type': 'application/json',
  accept: 'application/graphql-response+json',
  authorization: 'Bearer <token>',
  'user-agent': 'bench',
};

/** yoga answering from `onParams`, after `plugins`; the node request's body already read, as ours is. */
function yogaServer(plugins: Plugin[]): () => Promise<string> {
  const answer: Plugin = { onParams: ({ setResult }) => setResult(result) };
  const yoga = createYoga({ schema, landingPage: false, logging: false, cors: false, graphiql: false, plugins: [...plugins, answer] });
  return async () => (await yoga.handleNodeRequest({ method: 'POST', url: '/graphql', headers, body } as never)).text();
}

function graphqlHttpServer(): () => Promise<string> {
  const handler = createHandler({ schema, onSubscribe: () => result });
  return async () => {
    const [answer] = await handler({ method: 'POST', url: '/graphql', headers: { get: (name) => headers[name] ?? null }, body, raw: undefined, context: undefined });
    return answer ?? '';
  };
}

const masker = createErrorMasker(createLogger({ level: 'warn', pretty: false }));
// Ours: the plugins src/graphql/yoga.ts installs, and an awaited onParams as authentication's.
const ourPlugins: Plugin[] = [masker.plugin, useValidationErrorCode(), ...useArmor(), { onParams: async () => undefined }];
const servers: [string, () => Promise<string>][] = [
  ['yoga', yogaServer([])],
  ['yoga with our plugins', yogaServer(ourPlugins)],
  ['graphql-http', graphqlHttpServer()],
];

const expected = JSON.stringify(result);
for (const [name, serve] of servers) {
  if ((await serve()) !== expected) throw new Error(`${name} answered something else than ${expected}`);
  for (let index = 0; index < REQUESTS; index += 1) await serve();
}
// Alternating rounds, every handler warmed first: the one measured later does not run in a warmer process.
const rounds = new Map(servers.map(([name]) => [name, [] as string[]]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, serve] of servers) {
    const before = process.cpuUsage();
    for (let index = 0; index < REQUESTS; index += 1) await serve();
    const used = process.cpuUsage(before);
    rounds.get(name)!.push(((used.user + used.system) / REQUESTS).toFixed(1));
  }
}
console.log(`µs of CPU per request (user + system), ${ROUNDS} alternating rounds of ${REQUESTS} requests, one after another`);
for (const [name, figures] of rounds) console.log(`${name.padEnd(24)} ${figures.join('  ')}`);
