-- Every instance keeps API key states in memory (src/auth/key-status.ts) and LISTENs here: when a key
-- is revoked or deleted, by any instance, the CLI or plain SQL, its client id is sent to all of them
-- when the change commits, and they forget what they knew about it.
CREATE FUNCTION "api_key_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vda_api_key_changes', COALESCE(NEW.client_id, OLD.client_id));
  RETURN NULL;
END
$$;

CREATE TRIGGER "api_key_notify_change"
  AFTER UPDATE OF "revoked_at" OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "api_key_notify_change"();
