ALTER TABLE "api_tokens" ADD COLUMN "signature" text;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "kid" text;--> statement-breakpoint
ALTER TABLE "people_away" ADD COLUMN "signature" text;--> statement-breakpoint
ALTER TABLE "people_away" ADD COLUMN "kid" text;