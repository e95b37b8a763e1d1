CREATE TABLE `shared_marks` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `shared_marks_expires` ON `shared_marks` (`expires_at`);