// A tally counts in a plain number and shows the count on every scrape, never counting twice.
import { Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { tally } from '../../src/tally.ts';

const valueIn = async (registry: Registry) => Number(/^requests_total (\d+)$/m.exec(await registry.metrics())?.[1]);

it('shows what was counted at each scrape, once', async () => {
  const registry = new Registry();
  const requests = tally({ name: 'requests_total', help: 'requests', registers: [registry] });
  expect(await valueIn(registry)).toBe(0);
  for (let request = 0; request < 3; request += 1) requests.inc();
  expect(await valueIn(registry)).toBe(3);
  expect(await valueIn(registry)).toBe(3);
  requests.inc();
  expect(await valueIn(registry)).toBe(4);
});
