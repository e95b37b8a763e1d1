CREATE TABLE `push_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`person` text NOT NULL,
	`account` text NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint` ON `push_subscriptions` (`endpoint`);
--> statement-breakpoint
CREATE INDEX `push_subscriptions_person` ON `push_subscriptions` (`person`);
