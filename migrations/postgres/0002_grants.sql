CREATE TABLE "grants" (
	"id" text PRIMARY KEY NOT NULL,
	"rule" text NOT NULL,
	"label" text NOT NULL,
	"scope" jsonb NOT NULL,
	"request_id" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"revoked_by" text,
	"uses" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_request_id_confirmation_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."confirmation_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "grants_rule_expires" ON "grants" USING btree ("rule","expires_at");--> statement-breakpoint
CREATE INDEX "grants_created" ON "grants" USING btree ("created_at","id");