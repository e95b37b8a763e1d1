-- The audit chain covers every column of a request from here on (docs/audit.md, "What the chain covers"): a `created`
-- or `escalated` event written after this mark carries `detail.asked`, and `audit verify` holds a settled row to its
-- settling event column by column. Events up to the mark were written before and are checked as they were.
INSERT OR IGNORE INTO `audit_marks` (`name`, `event_id`, `at`)
  SELECT 'coverage_started', coalesce(max(`id`), 0), strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `confirmation_events`;
