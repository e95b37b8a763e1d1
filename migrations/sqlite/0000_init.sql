CREATE TABLE `channel_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`request_id` text NOT NULL,
	`channel` text NOT NULL,
	`target` text NOT NULL,
	`message_ref` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `confirmation_requests`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_messages_target` ON `channel_messages` (`request_id`,`channel`,`target`);--> statement-breakpoint
CREATE INDEX `channel_messages_status` ON `channel_messages` (`status`);--> statement-breakpoint
CREATE TABLE `confirmation_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`request_id` text NOT NULL,
	`type` text NOT NULL,
	`actor` text,
	`channel` text,
	`detail` text DEFAULT '{}' NOT NULL,
	`at` text NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `confirmation_requests`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `confirmation_events_request` ON `confirmation_events` (`request_id`,`id`);--> statement-breakpoint
CREATE INDEX `confirmation_events_type` ON `confirmation_events` (`type`,`at`);--> statement-breakpoint
CREATE TABLE `confirmation_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`tool_name` text NOT NULL,
	`tool_args` text NOT NULL,
	`approved_args` text,
	`prompt` text,
	`options` text NOT NULL,
	`agent_id` text,
	`user_id` text,
	`session_id` text,
	`tool_call_id` text,
	`metadata` text NOT NULL,
	`channels` text NOT NULL,
	`approvers` text NOT NULL,
	`required_approvals` integer DEFAULT 1 NOT NULL,
	`on_timeout` text DEFAULT 'deny' NOT NULL,
	`idempotency_key` text,
	`args_sha256` text NOT NULL,
	`callback_url` text,
	`nonce` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`responded_at` text,
	`responded_by` text,
	`responded_via` text,
	`decision_option` text,
	`reason` text,
	`allowed` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `confirmation_requests_idempotency_key` ON `confirmation_requests` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `confirmation_requests_status_expires` ON `confirmation_requests` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `confirmation_requests_created` ON `confirmation_requests` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `confirmation_requests_tool` ON `confirmation_requests` (`tool_name`,`created_at`);--> statement-breakpoint
CREATE INDEX `confirmation_requests_agent` ON `confirmation_requests` (`agent_id`,`created_at`);