CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`secret_sha256` text NOT NULL,
	`scopes` text NOT NULL,
	`as_identity` text,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_name` ON `api_tokens` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_secret` ON `api_tokens` (`secret_sha256`);--> statement-breakpoint
ALTER TABLE `confirmation_requests` ADD `filed_by` text;