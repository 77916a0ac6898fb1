/**
 * The aggregate questions bench/aggregates.ts asks, each as our request and as the statement a person
 * would write by hand for the same answer (the page of groups and their number, the JSON built by
 * PostgreSQL), served by bench/aggregate-baseline-server.ts.
 */
export interface AggregateQuestion {
  name: string;
  /** Our request path. */
  ours: string;
  /** The baseline's path and statement. */
  path: string;
  sql: string;
}

const page = (rows: string, order: string, total = 'SELECT count(*) FROM g') =>
  `SELECT json_build_object('data', coalesce((SELECT json_agg(${rows} ORDER BY ${order}) FROM (SELECT * FROM g ORDER BY ${order} LIMIT 25) p), '[]'), 'total', (${total}))::text`;

export const QUESTIONS: readonly AggregateQuestion[] = [
  {
    name: 'count by hq_country (entities)',
    ours: '/api/aggregate/entities?metric=count&group_by=hq_country',
    path: '/count-by-country',
    sql:
      'WITH g AS (SELECT hq_country, count(*) AS count FROM entities WHERE deleted_at IS NULL GROUP BY hq_country) ' +
      page(`json_build_object('hq_country', p.hq_country, 'count', p.count)`, 'count DESC, hq_country'),
  },
  {
    name: 'sum:amount_usd by date:year (all rounds)',
    ours: '/api/aggregate/transactions?metric=sum:amount_usd&group_by=date:year',
    path: '/sum-by-year',
    sql:
      "WITH g AS (SELECT date_trunc('year', date)::date AS year, sum(amount_usd) AS total FROM funding_rounds GROUP BY 1) " +
      page(`json_build_object('date_year', to_char(p.year, 'YYYY-MM-DD'), 'sum_amount_usd', p.total)`, 'total DESC NULLS LAST, year'),
  },
  {
    name: 'median:amount_usd by round_type, filtered',
    ours: '/api/aggregate/transactions?metric=median:amount_usd&group_by=round_type&filter=date[gte]:2020-01-01',
    path: '/median-by-round-type',
    sql:
      "WITH g AS (SELECT round_type, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount_usd) AS median FROM funding_rounds WHERE date >= '2020-01-01' GROUP BY 1) " +
      page(`json_build_object('round_type', p.round_type, 'median_amount_usd', p.median)`, 'median DESC NULLS LAST, round_type'),
  },
];
