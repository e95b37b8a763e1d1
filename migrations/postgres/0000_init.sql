CREATE TABLE "api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_sha256" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"as_identity" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "channel_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "channel_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"request_id" text NOT NULL,
	"channel" text NOT NULL,
	"target" text NOT NULL,
	"message_ref" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "confirmation_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "confirmation_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"request_id" text NOT NULL,
	"type" text NOT NULL,
	"actor" text,
	"channel" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "confirmation_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"tool_name" text NOT NULL,
	"tool_args" jsonb NOT NULL,
	"approved_args" jsonb,
	"prompt" text,
	"options" jsonb NOT NULL,
	"agent_id" text,
	"user_id" text,
	"session_id" text,
	"tool_call_id" text,
	"metadata" jsonb NOT NULL,
	"channels" jsonb NOT NULL,
	"approvers" jsonb NOT NULL,
	"required_approvals" integer DEFAULT 1 NOT NULL,
	"on_timeout" text DEFAULT 'deny' NOT NULL,
	"idempotency_key" text,
	"args_sha256" text NOT NULL,
	"callback_url" text,
	"filed_by" text,
	"nonce" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"responded_at" timestamp (3) with time zone,
	"responded_by" text,
	"responded_via" text,
	"decision_option" text,
	"reason" text,
	"allowed" boolean
);
--> statement-breakpoint
ALTER TABLE "channel_messages" ADD CONSTRAINT "channel_messages_request_id_confirmation_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."confirmation_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "confirmation_events" ADD CONSTRAINT "confirmation_events_request_id_confirmation_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."confirmation_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_name" ON "api_tokens" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_secret" ON "api_tokens" USING btree ("secret_sha256");--> statement-breakpoint
CREATE UNIQUE INDEX "channel_messages_target" ON "channel_messages" USING btree ("request_id","channel","target");--> statement-breakpoint
CREATE INDEX "channel_messages_status" ON "channel_messages" USING btree ("status");--> statement-breakpoint
CREATE INDEX "confirmation_events_request" ON "confirmation_events" USING btree ("request_id","id");--> statement-breakpoint
CREATE INDEX "confirmation_events_type" ON "confirmation_events" USING btree ("type","at");--> statement-breakpoint
CREATE UNIQUE INDEX "confirmation_requests_idempotency_key" ON "confirmation_requests" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "confirmation_requests_status_expires" ON "confirmation_requests" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "confirmation_requests_created" ON "confirmation_requests" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "confirmation_requests_tool" ON "confirmation_requests" USING btree ("tool_name","created_at");--> statement-breakpoint
CREATE INDEX "confirmation_requests_agent" ON "confirmation_requests" USING btree ("agent_id","created_at");