/**
 * `npx tsx bench/compression-cost.ts`: what compressing one small answer costs, the way the `compression`
 * middleware does it (a zlib stream per response: the work runs on libuv's threadpool, with hops back to
 * the event loop for the data and the end) against one synchronous call on the whole body, which is
 * known when a JSON answer is sent. Same parameters as the middleware: gzip at zlib's default level,
 * brotli at quality 4. The answer is an entity record of about the by-id read's size (1–2 KB).
 */
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync, type Gzip, type BrotliCompress } from 'node:zlib';

const ANSWERS = 3_000;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

const body = Buffer.from(
  JSON.stringify({
    data: {
      id: 4211,
      name: 'Acme Robotics',
      tagline: 'Robots that build robots for the modern factory floor',
      description: 'Acme Robotics designs and manufactures collaborative industrial robots. '.repeat(5),
      hq_country: 'United States',
      hq_city: 'San Francisco',
      launch_year: 2015,
      total_funding_usd: 123_456_789,
      website: 'https://acme.example.com',
      tags: ['robotics', 'manufacturing', 'ai'].map((name, id) => ({ id, name })),
      founders: Array.from({ length: 4 }, (_, id) => ({ id, name: `Founder ${id}`, linkedin_url: `https://www.linkedin.com/in/founder-${id}` })),
    },
  }),
);

function streamed(make: () => Gzip | BrotliCompress): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = make();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    stream.end(body);
  });
}

async function microsecondsPerAnswer(compress: () => Buffer | Promise<Buffer>): Promise<number> {
  for (let warm = 0; warm < 300; warm += 1) await compress();
  const started = process.hrtime.bigint();
  for (let answer = 0; answer < ANSWERS; answer += 1) await compress();
  return Number(process.hrtime.bigint() - started) / ANSWERS / 1_000;
}

console.log(`an answer of ${body.length} bytes; µs of wall time per answer, one at a time`);
for (let round = 1; round <= 3; round += 1) {
  const figures = {
    'gzip, stream': await microsecondsPerAnswer(() => streamed(() => createGzip())),
    'gzip, one call': await microsecondsPerAnswer(() => gzipSync(body)),
    'br, stream': await microsecondsPerAnswer(() => streamed(() => createBrotliCompress(BROTLI))),
    'br, one call': await microsecondsPerAnswer(() => brotliCompressSync(body, BROTLI)),
  };
  console.log(`round ${round}: ${Object.entries(figures).map(([name, us]) => `${name} ${us.toFixed(0)}`).join(', ')}`);
}
