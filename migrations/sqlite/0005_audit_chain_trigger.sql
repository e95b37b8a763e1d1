-- The audit chain (docs/audit.md): every event inserted gets `prev_hash` (the previous event's hash) and `hash`,
-- computed by `tollgate_event_hash`, a function each tollgate connection registers (src/audit/encoding.ts). SQLite runs
-- one writer at a time, so ids and the chain agree. Rows that existed before are chained once at start-up
-- (`chainBacklog`), recorded as the `chain_started` mark.
CREATE TRIGGER `confirmation_events_chain` AFTER INSERT ON `confirmation_events`
BEGIN
  UPDATE `confirmation_events` SET (`prev_hash`, `hash`) = (
    SELECT c.p, tollgate_event_hash(c.p, NEW.request_id, NEW.type, NEW.actor, NEW.channel, NEW.detail, NEW.at,
      r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by)
    FROM (SELECT coalesce((SELECT `hash` FROM `confirmation_events` WHERE `id` < NEW.id ORDER BY `id` DESC LIMIT 1),
      '0000000000000000000000000000000000000000000000000000000000000000') AS p) AS c
    LEFT JOIN `confirmation_requests` AS r ON NEW.type = 'created' AND r.id = NEW.request_id
  ) WHERE `id` = NEW.id;
END;
