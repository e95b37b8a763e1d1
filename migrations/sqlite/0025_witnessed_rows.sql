ALTER TABLE `api_tokens` ADD `signature` text;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `kid` text;--> statement-breakpoint
ALTER TABLE `people_away` ADD `signature` text;--> statement-breakpoint
ALTER TABLE `people_away` ADD `kid` text;