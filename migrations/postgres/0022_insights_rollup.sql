CREATE TABLE "insights_daily" (
	"day" text NOT NULL,
	"dim" text NOT NULL,
	"key" text,
	"bucket" integer,
	"requests" integer NOT NULL,
	"approved" integer NOT NULL,
	"denied" integer NOT NULL,
	"expired" integer NOT NULL,
	"cancelled" integer NOT NULL,
	"edited" integer NOT NULL,
	"human_approvals" integer NOT NULL,
	"fast" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "insights_rollup_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"refreshed_at" timestamp (3) with time zone NOT NULL,
	"through" text NOT NULL,
	"open_from" text NOT NULL,
	"dims" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "insights_daily_dim_day" ON "insights_daily" USING btree ("dim","day");