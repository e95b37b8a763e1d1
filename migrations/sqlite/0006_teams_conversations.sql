CREATE TABLE `teams_conversations` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`service_url` text NOT NULL,
	`tenant_id` text,
	`updated_at` text NOT NULL
);
