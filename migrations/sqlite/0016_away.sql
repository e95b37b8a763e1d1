CREATE TABLE `people_away` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`person` text NOT NULL,
	`away_from` text,
	`away_until` text,
	`delegate` text,
	`note` text,
	`set_by` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `people_away_person` ON `people_away` (`person`,`id`);--> statement-breakpoint
ALTER TABLE `confirmation_requests` ADD `on_behalf_of` text;