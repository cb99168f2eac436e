-- The change feed (docs/design.md#the-read-cache): a statement that changes rows of a table whose
-- reads an instance remembers tells every instance, through NOTIFY at its commit, which table
-- changed (`schema.table` on the channel `idp_changed`), so each drops what it remembered of it.
-- A rolled-back statement notifies nobody. Only the tables read through `remembered` (src/db/open.ts)
-- have the trigger; an instance remembers nothing of a table without it.
CREATE OR REPLACE FUNCTION idp_table_changed() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM pg_notify('idp_changed', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
DO $$
DECLARE
  name text;
BEGIN
  FOREACH name IN ARRAY ARRAY['organizations', 'admin_users', 'org_admins', 'applications', 'credentials', 'entities', 'connections', 'collections', 'signing_keys', 'oauth_clients', 'token_revocations'] LOOP
    EXECUTE format('CREATE TRIGGER idp_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION idp_table_changed()', name);
  END LOOP;
END
$$;
