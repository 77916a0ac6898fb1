-- Exports (docs/exports.md): a job per export, run by the background worker under a lease, and its
-- files stored in the database in parts, so every instance serves them.
CREATE TABLE "exports" (
    "id" SERIAL NOT NULL,
    "org_id" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    -- Who asked, as the job reads the list for them: subject, kind, client, api key, permissions.
    "principal" JSONB NOT NULL,
    "resource" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "filter" TEXT,
    "fields" TEXT[],
    "since" TEXT,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "rows_written" INTEGER NOT NULL DEFAULT 0,
    "rows_estimated" INTEGER,
    "cursor" TEXT,
    "columns" JSONB,
    "error" JSONB,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    CONSTRAINT "exports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "exports_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "exports_org_id_id_idx" ON "exports"("org_id", "id");
CREATE INDEX "exports_status_id_idx" ON "exports"("status", "id");
CREATE UNIQUE INDEX "exports_org_id_created_by_idempotency_key_key" ON "exports"("org_id", "created_by", "idempotency_key");

CREATE TABLE "export_files" (
    "export_id" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,
    "bytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,
    CONSTRAINT "export_files_pkey" PRIMARY KEY ("export_id", "n"),
    CONSTRAINT "export_files_export_id_fkey" FOREIGN KEY ("export_id") REFERENCES "exports"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- A file's bytes in order: part p starts at byte "offset" (a Range read finds its first part by it).
CREATE TABLE "export_file_parts" (
    "export_id" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,
    "part" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "data" BYTEA NOT NULL,
    CONSTRAINT "export_file_parts_pkey" PRIMARY KEY ("export_id", "n", "part"),
    CONSTRAINT "export_file_parts_export_id_fkey" FOREIGN KEY ("export_id") REFERENCES "exports"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Rows written by the exports a client asked for, counted beside its requests (the export's creation is the request).
ALTER TABLE "usage_buckets" ADD COLUMN "rows_exported" BIGINT NOT NULL DEFAULT 0;
