-- Coding agents (`tollgate hook <agent>`): which agent asked, and where it was working (JSON: session_id, cwd, repo,
-- branch, model). Both are covered by the created event's `detail.asked` digest (docs/audit.md).
ALTER TABLE `confirmation_requests` ADD `agent_kind` text;--> statement-breakpoint
ALTER TABLE `confirmation_requests` ADD `context` text;--> statement-breakpoint
CREATE INDEX `confirmation_requests_agent_kind` ON `confirmation_requests` (`agent_kind`,`created_at`);
