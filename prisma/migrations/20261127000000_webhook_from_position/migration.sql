-- A webhook hears the changes committed after it was created (docs/webhooks.md): the head of the
-- changes feed when it was created, read in the creating transaction. Webhooks that existed before keep
-- 0: they hear whatever the followers have not passed yet, as they did.
ALTER TABLE "webhooks" ADD COLUMN "from_position" BIGINT NOT NULL DEFAULT 0;
