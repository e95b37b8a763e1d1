-- The chain's hash, the same value as before, computed several times faster (docs/audit.md, "Cost"). The two helper
-- functions were declared IMMUTABLE while calling STABLE ones (convert_to, to_char), so PostgreSQL could not inline
-- them and ran each call through the SQL-function executor: ~200 µs of the trigger per `created` event, one chain
-- lock held meanwhile. Declared STABLE, they inline into the expressions that call them.
ALTER FUNCTION tollgate_chain_field(text) STABLE;
--> statement-breakpoint
ALTER FUNCTION tollgate_chain_time(timestamptz) STABLE;
--> statement-breakpoint
-- One query for the request's fields of a `created` event instead of a whole-row fetch; the encoding is unchanged.
CREATE OR REPLACE FUNCTION tollgate_event_hash(prev text, e confirmation_events) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  request text;
BEGIN
  IF e.type = 'created' THEN
    SELECT tollgate_chain_field(r.tool_name) || tollgate_chain_field(r.args_sha256) || tollgate_chain_field(r.required_approvals::text)
        || tollgate_chain_field(r.on_timeout) || tollgate_chain_field(tollgate_chain_time(r.created_at)) || tollgate_chain_field(tollgate_chain_time(r.expires_at))
        || tollgate_chain_field(r.user_id) || tollgate_chain_field(r.agent_id) || tollgate_chain_field(r.filed_by)
      INTO request FROM confirmation_requests r WHERE r.id = e.request_id;
  END IF;
  RETURN encode(sha256(convert_to('tollgate-chain-v1' || chr(10) || prev || chr(10)
    || tollgate_chain_field(e.request_id) || tollgate_chain_field(e.type) || tollgate_chain_field(e.actor) || tollgate_chain_field(e.channel)
    || tollgate_chain_field(e.detail::text) || tollgate_chain_field(tollgate_chain_time(e.at)) || coalesce(request, '-;'), 'UTF8')), 'hex');
END
$$;
--> statement-breakpoint
-- The trigger takes the chain's lock and reads the head once per transaction: the head it then extends is remembered
-- in a transaction-local setting, which ends (or rolls back with a savepoint) exactly when the lock does. A row
-- given an id (a copy from SQLite, which may skip it ON CONFLICT) reads the head from the table, as before, and makes
-- the next row read it too.
CREATE OR REPLACE FUNCTION tollgate_chain_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head text := current_setting('tollgate.chain_head', true);
  last_id bigint;
  last_hash text;
  given boolean := NEW.id IS NOT NULL;
BEGIN
  IF NOT given AND head <> '' THEN
    last_id := split_part(head, ':', 1)::bigint;
    last_hash := split_part(head, ':', 2);
  ELSE
    -- 7130413505: the chain's lock, one number for every replica of this database.
    PERFORM pg_advisory_xact_lock(7130413505);
    SELECT id, hash INTO last_id, last_hash FROM confirmation_events ORDER BY id DESC LIMIT 1;
  END IF;
  IF NOT given THEN
    NEW.id := coalesce(last_id, 0) + 1;
  END IF;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.hash := tollgate_event_hash(NEW.prev_hash, NEW);
  PERFORM set_config('tollgate.chain_head', CASE WHEN given THEN '' ELSE NEW.id::text || ':' || NEW.hash END, true);
  RETURN NEW;
END
$$;
