-- The audit chain (docs/audit.md, src/audit/encoding.ts): every event inserted gets `prev_hash` (the previous event's
-- hash) and `hash`. The trigger takes the chain's lock (a transaction-level advisory lock, held to commit) and gives
-- the row the next id under it, so replicas inserting at once extend one chain whose order is the ids' order.
CREATE FUNCTION tollgate_chain_field(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL THEN '-;' ELSE octet_length(convert_to(v, 'UTF8'))::text || ':' || v || ';' END
$$;
--> statement-breakpoint
CREATE FUNCTION tollgate_chain_time(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
--> statement-breakpoint
CREATE FUNCTION tollgate_event_hash(prev text, e confirmation_events) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  r confirmation_requests;
  request text := '-;';
BEGIN
  IF e.type = 'created' THEN
    SELECT * INTO r FROM confirmation_requests WHERE id = e.request_id;
    IF FOUND THEN
      request := tollgate_chain_field(r.tool_name) || tollgate_chain_field(r.args_sha256) || tollgate_chain_field(r.required_approvals::text)
        || tollgate_chain_field(r.on_timeout) || tollgate_chain_field(tollgate_chain_time(r.created_at)) || tollgate_chain_field(tollgate_chain_time(r.expires_at))
        || tollgate_chain_field(r.user_id) || tollgate_chain_field(r.agent_id) || tollgate_chain_field(r.filed_by);
    END IF;
  END IF;
  RETURN encode(sha256(convert_to('tollgate-chain-v1' || chr(10) || prev || chr(10)
    || tollgate_chain_field(e.request_id) || tollgate_chain_field(e.type) || tollgate_chain_field(e.actor) || tollgate_chain_field(e.channel)
    || tollgate_chain_field(e.detail::text) || tollgate_chain_field(tollgate_chain_time(e.at)) || request, 'UTF8')), 'hex');
END
$$;
--> statement-breakpoint
CREATE FUNCTION tollgate_chain_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_id bigint;
  last_hash text;
BEGIN
  -- 7130413505: the chain's lock, one number for every replica of this database.
  PERFORM pg_advisory_xact_lock(7130413505);
  SELECT id, hash INTO last_id, last_hash FROM confirmation_events ORDER BY id DESC LIMIT 1;
  IF NEW.id IS NULL THEN
    NEW.id := coalesce(last_id, 0) + 1;
  END IF;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.hash := tollgate_event_hash(NEW.prev_hash, NEW);
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER confirmation_events_chain BEFORE INSERT ON confirmation_events FOR EACH ROW EXECUTE FUNCTION tollgate_chain_event();
--> statement-breakpoint
-- Rows written before the chain existed are chained once, in id order; the mark says up to which id.
DO $$
DECLARE
  e confirmation_events;
  prev text := repeat('0', 64);
  last_id bigint := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7130413505);
  FOR e IN SELECT * FROM confirmation_events ORDER BY id LOOP
    UPDATE confirmation_events SET prev_hash = prev, hash = tollgate_event_hash(prev, e) WHERE id = e.id RETURNING hash INTO prev;
    last_id := e.id;
  END LOOP;
  INSERT INTO audit_marks (name, event_id, at) VALUES ('chain_started', last_id, now()) ON CONFLICT (name) DO NOTHING;
END
$$;
