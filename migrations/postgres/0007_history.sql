CREATE TABLE "audit_checkpoints" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_checkpoints_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" bigint NOT NULL,
	"hash" text NOT NULL,
	"at" text NOT NULL,
	"signature" text NOT NULL,
	"pruned_before" timestamp (3) with time zone NOT NULL,
	"requests" integer NOT NULL,
	"events" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "confirmation_requests_status_created" ON "confirmation_requests" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "confirmation_requests_responded_by" ON "confirmation_requests" USING btree ("responded_by","created_at");--> statement-breakpoint
CREATE INDEX "grants_request" ON "grants" USING btree ("request_id");