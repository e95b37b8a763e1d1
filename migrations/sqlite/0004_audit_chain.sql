CREATE TABLE `audit_marks` (
	`name` text PRIMARY KEY NOT NULL,
	`event_id` integer,
	`at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `confirmation_events` ADD `prev_hash` text;--> statement-breakpoint
ALTER TABLE `confirmation_events` ADD `hash` text;