CREATE TABLE `audit_receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`kid` text NOT NULL,
	`at` text NOT NULL,
	`leaves` text NOT NULL,
	`signature` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `chain_checkpoints` (
	`n` integer PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`head` text NOT NULL,
	`at` text NOT NULL,
	`kind` text NOT NULL,
	`kid` text NOT NULL,
	`signature` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `chain_head` (
	`id` integer PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`hash` text NOT NULL,
	`checkpoint` integer NOT NULL,
	`checkpoint_at` text,
	`checkpoint_size` integer NOT NULL,
	`legacy` integer
);
--> statement-breakpoint
CREATE TABLE `verdict_tokens` (
	`request_id` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `confirmation_events` ADD `seq` integer;--> statement-breakpoint
ALTER TABLE `confirmation_events` ADD `leaf` text;--> statement-breakpoint
ALTER TABLE `confirmation_events` ADD `receipt_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `confirmation_events_seq` ON `confirmation_events` (`seq`);--> statement-breakpoint
CREATE INDEX `confirmation_events_pending` ON `confirmation_events` (`id`) WHERE "confirmation_events"."seq" IS NULL;--> statement-breakpoint
-- The fifth stage (docs/audit.md, "The proof"): events are no longer chained as they are inserted. Their writer signs
-- their leaves in a batch receipt; the integrator gives them `seq` and the chain hash after commit. Events from before
-- are integrated first, at the first start that holds the key, under a signed `legacy` checkpoint.
DROP TRIGGER IF EXISTS `confirmation_events_chain`;--> statement-breakpoint
INSERT INTO `chain_head` (`id`, `size`, `hash`, `checkpoint`, `checkpoint_at`, `checkpoint_size`, `legacy`)
  VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000', 0, NULL, 0, (SELECT max(`id`) FROM `confirmation_events`));
--> statement-breakpoint
-- Event-stream cursors count places in the one order (`seq`) from now on, not ids. The events above are placed first,
-- in id order from 1, so a cursor at id C becomes the number of events with an id up to C.
UPDATE `audit_marks` SET `event_id` = (SELECT count(*) FROM `confirmation_events` e WHERE e.`id` <= `audit_marks`.`event_id`) WHERE `name` LIKE 'sink:%';
