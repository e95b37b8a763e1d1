CREATE TABLE `confirmation_voters` (
	`person` text NOT NULL,
	`request_created_at` text NOT NULL,
	`request_id` text NOT NULL,
	PRIMARY KEY(`person`, `request_created_at`, `request_id`)
);
--> statement-breakpoint
CREATE INDEX `confirmation_voters_request` ON `confirmation_voters` (`request_id`);
--> statement-breakpoint
-- The votes recorded before this table: each approval of a quorum request by someone other than its final responder.
INSERT OR IGNORE INTO `confirmation_voters` (`person`, `request_created_at`, `request_id`)
SELECT coalesce(json_extract(e.`detail`, '$.person'), e.`actor`), r.`created_at`, r.`id`
FROM `confirmation_requests` r JOIN `confirmation_events` e ON e.`request_id` = r.`id`
WHERE r.`required_approvals` > 1 AND e.`type` = 'approved' AND e.`actor` IS NOT NULL
  AND coalesce(json_extract(e.`detail`, '$.person'), e.`actor`) IS NOT r.`responded_by_person`;