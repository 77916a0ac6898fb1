-- Usage is counted per (organisation, client, endpoint, hour): one client id may act for several
-- organisations (an identity provider's application used by members of different organisations),
-- and each organisation sees only its own share. No foreign key to organizations: counting must never
-- fail a batch because a request named an organisation that was never stored.
--
-- Nothing wrote usage_buckets before this migration; any row there is attributed through its key.
ALTER TABLE "usage_buckets" ADD COLUMN "org_id" TEXT;
UPDATE "usage_buckets" AS usage SET "org_id" = keys."org_id"
  FROM "api_keys" AS keys WHERE keys."client_id" = usage."client_id";
DELETE FROM "usage_buckets" WHERE "org_id" IS NULL;
ALTER TABLE "usage_buckets" ALTER COLUMN "org_id" SET NOT NULL;

-- The key reads as the time series is asked for: one organisation's client over a range of hours.
ALTER TABLE "usage_buckets" DROP CONSTRAINT "usage_buckets_pkey";
ALTER TABLE "usage_buckets" ADD CONSTRAINT "usage_buckets_pkey" PRIMARY KEY ("org_id", "client_id", "bucket", "endpoint");
