CREATE TABLE `audit_checkpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`hash` text NOT NULL,
	`at` text NOT NULL,
	`signature` text NOT NULL,
	`pruned_before` text NOT NULL,
	`requests` integer NOT NULL,
	`events` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `confirmation_requests_status_created` ON `confirmation_requests` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `confirmation_requests_responded_by` ON `confirmation_requests` (`responded_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `grants_request` ON `grants` (`request_id`);