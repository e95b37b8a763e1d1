-- Decided rows only: `?person=` and `?responded_by=` look for a value (which implies NOT NULL, so SQLite takes the
-- partial index for them), and a pending row has neither. Whole, each index took a null entry for every create and
-- moved it at the decision: a page more of WAL in each commit (docs/performance.md, "Where the time went").
DROP INDEX `confirmation_requests_person`;--> statement-breakpoint
DROP INDEX `confirmation_requests_responded_by`;--> statement-breakpoint
CREATE INDEX `confirmation_requests_person` ON `confirmation_requests` (`responded_by_person`,`created_at`) WHERE responded_by_person IS NOT NULL;--> statement-breakpoint
CREATE INDEX `confirmation_requests_responded_by` ON `confirmation_requests` (`responded_by`,`created_at`) WHERE responded_by IS NOT NULL;