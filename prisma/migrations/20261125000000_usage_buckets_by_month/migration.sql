-- usage_buckets becomes range-partitioned by the month (UTC) of its hour, so that old usage leaves by
-- dropping a whole month (USAGE_RETENTION_DAYS) instead of deleting rows, and a read of a range only
-- touches its months. The primary key already holds the partition column, as PostgreSQL requires.
-- The service creates the months ahead and drops expired ones (src/usage/partitions.ts); a row whose
-- month has no partition yet lands in usage_buckets_default, which the service empties into the
-- month's partition when it creates it. Existing rows are kept, each in its month's partition.
ALTER TABLE "usage_buckets" RENAME TO "usage_buckets_unpartitioned";
ALTER TABLE "usage_buckets_unpartitioned" RENAME CONSTRAINT "usage_buckets_pkey" TO "usage_buckets_unpartitioned_pkey";

CREATE TABLE "usage_buckets" (
    "org_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "endpoint" TEXT NOT NULL,
    "request_count" BIGINT NOT NULL DEFAULT 0,
    "error_count" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "usage_buckets_pkey" PRIMARY KEY ("org_id", "client_id", "bucket", "endpoint")
) PARTITION BY RANGE ("bucket");

CREATE TABLE "usage_buckets_default" PARTITION OF "usage_buckets" DEFAULT;

-- One partition per month the existing rows fall in, named as the service names them.
DO $$
DECLARE
  month timestamp;
BEGIN
  FOR month IN SELECT DISTINCT date_trunc('month', "bucket" AT TIME ZONE 'UTC') FROM "usage_buckets_unpartitioned" LOOP
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF "usage_buckets" FOR VALUES FROM (%L) TO (%L)',
      'usage_buckets_' || to_char(month, 'YYYY_MM'),
      to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
      to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00'
    );
  END LOOP;
END $$;

INSERT INTO "usage_buckets" ("org_id", "client_id", "bucket", "endpoint", "request_count", "error_count")
SELECT "org_id", "client_id", "bucket", "endpoint", "request_count", "error_count" FROM "usage_buckets_unpartitioned";

DROP TABLE "usage_buckets_unpartitioned";
