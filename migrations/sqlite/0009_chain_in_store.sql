-- The store computes an event's `prev_hash` and `hash` itself, in the transaction that inserts the row
-- (src/requests/sqlite/store.ts), and inserts them with it: one write per event instead of an insert and then the
-- trigger's update of the same row. The trigger stays for every other writer and runs only for a row that comes
-- without its hash, so the database still chains whatever is inserted.
DROP TRIGGER `confirmation_events_chain`;--> statement-breakpoint
CREATE TRIGGER `confirmation_events_chain` AFTER INSERT ON `confirmation_events` WHEN NEW.`hash` IS NULL
BEGIN
  UPDATE `confirmation_events` SET (`prev_hash`, `hash`) = (
    SELECT c.p, tollgate_event_hash(c.p, NEW.request_id, NEW.type, NEW.actor, NEW.channel, NEW.detail, NEW.at,
      r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by)
    FROM (SELECT coalesce((SELECT `hash` FROM `confirmation_events` WHERE `id` < NEW.id ORDER BY `id` DESC LIMIT 1),
      '0000000000000000000000000000000000000000000000000000000000000000') AS p) AS c
    LEFT JOIN `confirmation_requests` AS r ON NEW.type = 'created' AND r.id = NEW.request_id
  ) WHERE `id` = NEW.id;
END;
