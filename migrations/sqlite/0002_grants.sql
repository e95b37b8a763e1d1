CREATE TABLE `grants` (
	`id` text PRIMARY KEY NOT NULL,
	`rule` text NOT NULL,
	`label` text NOT NULL,
	`scope` text NOT NULL,
	`request_id` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`revoked_by` text,
	`uses` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `confirmation_requests`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `grants_rule_expires` ON `grants` (`rule`,`expires_at`);--> statement-breakpoint
CREATE INDEX `grants_created` ON `grants` (`created_at`,`id`);