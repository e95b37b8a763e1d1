-- Coding agents (`tollgate hook <agent>`): which agent asked, and where it was working (session_id, cwd, repo, branch,
-- model). Both are covered by the created event's `detail.asked` digest (docs/audit.md).
ALTER TABLE "confirmation_requests" ADD COLUMN "agent_kind" text;--> statement-breakpoint
ALTER TABLE "confirmation_requests" ADD COLUMN "context" jsonb;--> statement-breakpoint
CREATE INDEX "confirmation_requests_agent_kind" ON "confirmation_requests" USING btree ("agent_kind","created_at");
