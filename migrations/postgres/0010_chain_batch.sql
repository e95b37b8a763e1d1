-- The audit chain for a batch of creates, in the create's own statement (src/requests/postgres/creates.ts): the same
-- hashes as the trigger's, computed set-based instead of one PL/pgSQL trigger call per event (with a lookup of the
-- request for each `created` one), which cost a create more database CPU than the rest of its statement. The hashed
-- text is split in two inlinable SQL functions: the event's fields (`tollgate_chain_body`, computed for a whole batch
-- at once) and the link to the previous hash (`tollgate_chain_link`, the only step that must go one event after the
-- other). Their arguments are text already: an inlined tollgate_chain_field repeats its argument three times, so a
-- `to_char` or `jsonb::text` passed to it ran three times (as in 0008's functions, whose hashes these equal).
CREATE FUNCTION tollgate_chain_request(tool_name text, args_sha256 text, required_approvals text, on_timeout text,
    created_at text, expires_at text, user_id text, agent_id text, filed_by text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT tollgate_chain_field(tool_name) || tollgate_chain_field(args_sha256) || tollgate_chain_field(required_approvals)
    || tollgate_chain_field(on_timeout) || tollgate_chain_field(created_at) || tollgate_chain_field(expires_at)
    || tollgate_chain_field(user_id) || tollgate_chain_field(agent_id) || tollgate_chain_field(filed_by)
$$;
--> statement-breakpoint
-- `detail` is the jsonb's text, `at` tollgate_chain_time's; `request` is tollgate_chain_request's text for a `created`
-- event, null for any other.
CREATE FUNCTION tollgate_chain_body(request_id text, type text, actor text, channel text, detail text, at text, request text)
    RETURNS text LANGUAGE sql STABLE AS $$
  SELECT tollgate_chain_field(request_id) || tollgate_chain_field(type) || tollgate_chain_field(actor) || tollgate_chain_field(channel)
    || tollgate_chain_field(detail) || tollgate_chain_field(at) || coalesce(request, '-;')
$$;
--> statement-breakpoint
CREATE FUNCTION tollgate_chain_link(prev text, body text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to('tollgate-chain-v1' || chr(10) || prev || chr(10) || body, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tollgate_event_hash(prev text, e confirmation_events) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  request text;
  detail text := e.detail::text;
  at text := tollgate_chain_time(e.at);
BEGIN
  IF e.type = 'created' THEN
    -- OFFSET 0 keeps the times' text computed once each, not inlined into every use.
    SELECT tollgate_chain_request(r.tool_name, r.args_sha256, r.required_approvals::text, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by)
      INTO request FROM (SELECT tool_name, args_sha256, required_approvals, on_timeout, tollgate_chain_time(created_at) AS created_at,
        tollgate_chain_time(expires_at) AS expires_at, user_id, agent_id, filed_by FROM confirmation_requests WHERE id = e.request_id OFFSET 0) r;
  END IF;
  RETURN tollgate_chain_link(prev, tollgate_chain_body(e.request_id, e.type, e.actor, e.channel, detail, at, request));
END
$$;
--> statement-breakpoint
-- The chain's head for a statement that chains its own rows: takes the chain's lock (held to commit), then reads the
-- head with a snapshot taken after it, so a replica that just extended the chain is seen. VOLATILE for that fresh
-- snapshot. The head remembered for the trigger is forgotten: the rows this statement adds move the head, and a later
-- insert in the same transaction reads it from the table (under the lock it already holds).
CREATE FUNCTION tollgate_chain_reserve(OUT id bigint, OUT hash text) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  -- 7130413505: the chain's lock, one number for every replica of this database (as the trigger's).
  PERFORM pg_advisory_xact_lock(7130413505);
  SELECT e.id, e.hash INTO id, hash FROM confirmation_events e ORDER BY e.id DESC LIMIT 1;
  id := coalesce(id, 0);
  hash := coalesce(hash, repeat('0', 64));
  PERFORM set_config('tollgate.chain_head', '', true);
END
$$;
--> statement-breakpoint
-- A row that arrives chained (an id and a hash: the batched create, which computed them under the lock) skips the
-- trigger; `tollgate audit verify` checks every hash whoever wrote it, as before.
DROP TRIGGER confirmation_events_chain ON confirmation_events;
--> statement-breakpoint
CREATE TRIGGER confirmation_events_chain BEFORE INSERT ON confirmation_events FOR EACH ROW
  WHEN (NEW.id IS NULL OR NEW.hash IS NULL) EXECUTE FUNCTION tollgate_chain_event();
