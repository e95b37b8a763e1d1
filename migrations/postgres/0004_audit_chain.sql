CREATE TABLE "audit_marks" (
	"name" text PRIMARY KEY NOT NULL,
	"event_id" bigint,
	"at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "confirmation_events" ALTER COLUMN "id" DROP IDENTITY;--> statement-breakpoint
ALTER TABLE "confirmation_events" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "confirmation_events" ADD COLUMN "hash" text;