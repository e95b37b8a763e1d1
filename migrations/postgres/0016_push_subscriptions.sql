CREATE TABLE "push_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"person" text NOT NULL,
	"account" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint" ON "push_subscriptions" USING btree ("endpoint");
--> statement-breakpoint
CREATE INDEX "push_subscriptions_person" ON "push_subscriptions" USING btree ("person");
