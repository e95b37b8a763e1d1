-- An idempotency key belongs to the token that filed (issue 58): unique per filer, not across the deployment, so another
-- token's key neither reads nor blocks this one's. In-process callers (filed_by NULL) share one scope.
DROP INDEX "confirmation_requests_idempotency_key";--> statement-breakpoint
CREATE UNIQUE INDEX "confirmation_requests_filer_idempotency_key" ON "confirmation_requests" USING btree (coalesce("filed_by", ''),"idempotency_key");
