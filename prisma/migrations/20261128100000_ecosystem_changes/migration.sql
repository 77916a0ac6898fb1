-- An ecosystem's membership changes when its filter is edited or it is deactivated (or activated
-- again), as well as when the data does (docs/changes.md, "Ecosystem membership"). Those edits are
-- recorded in the changes feed as `ecosystem` changes, in the transaction that writes them, so each
-- takes its place in commit order like a data commit: the membership follower attributes an edit's
-- events to the edit's own position, and a webhook hears them exactly when it was created before the
-- edit committed (webhooks.from_position). The public feed does not list them: its types are the six
-- data resources, and an organisation's ecosystems are its own.
--
-- A creation is not recorded: it takes its starting members in its own transaction (holding the
-- clock's row, as a webhook's creation does), and reports nothing.
CREATE FUNCTION "record_ecosystem_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := pg_current_xact_id()::text::bigint;
  kind text := CASE WHEN OLD.is_active AND NOT NEW.is_active THEN 'deleted'
                    WHEN NOT OLD.is_active AND NEW.is_active THEN 'created'
                    ELSE 'updated' END;
  columns text[] := ARRAY(SELECT c FROM unnest(ARRAY['filter', 'is_active']) c
                           WHERE (c = 'filter' AND OLD.filter IS DISTINCT FROM NEW.filter)
                              OR (c = 'is_active' AND OLD.is_active IS DISTINCT FROM NEW.is_active));
BEGIN
  INSERT INTO changes (xid, resource, kind, object_id, changed_columns) VALUES (tx, 'ecosystem', kind, NEW.id, columns)
  ON CONFLICT (xid, resource, object_id) DO UPDATE
    SET kind = merged_change_kind(changes.kind, EXCLUDED.kind),
        changed_columns = merged_change_columns(changes.kind, EXCLUDED.kind, changes.changed_columns, EXCLUDED.changed_columns);
  PERFORM note_change_commit(tx);
  RETURN NULL;
END $$;

CREATE TRIGGER "ecosystems_changes_update" AFTER UPDATE OF "filter", "is_active" ON "ecosystems"
  FOR EACH ROW WHEN (OLD.filter IS DISTINCT FROM NEW.filter OR OLD.is_active IS DISTINCT FROM NEW.is_active)
  EXECUTE FUNCTION record_ecosystem_change();
