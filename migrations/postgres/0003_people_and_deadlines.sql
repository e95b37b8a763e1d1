CREATE TABLE "deployment_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory_resolutions" (
	"channel" text NOT NULL,
	"email" text NOT NULL,
	"account" text,
	"error" text,
	"resolved_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "directory_resolutions_channel_email_pk" PRIMARY KEY("channel","email")
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "person" text;--> statement-breakpoint
ALTER TABLE "confirmation_requests" ADD COLUMN "filed_by_person" text;--> statement-breakpoint
ALTER TABLE "confirmation_requests" ADD COLUMN "responded_by_person" text;--> statement-breakpoint
CREATE INDEX "confirmation_requests_person" ON "confirmation_requests" USING btree ("responded_by_person","created_at");