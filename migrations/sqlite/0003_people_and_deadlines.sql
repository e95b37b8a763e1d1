CREATE TABLE `deployment_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `person` text;--> statement-breakpoint
ALTER TABLE `confirmation_requests` ADD `filed_by_person` text;--> statement-breakpoint
ALTER TABLE `confirmation_requests` ADD `responded_by_person` text;--> statement-breakpoint
CREATE INDEX `confirmation_requests_person` ON `confirmation_requests` (`responded_by_person`,`created_at`);