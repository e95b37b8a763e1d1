CREATE TABLE "people_away" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "people_away_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"person" text NOT NULL,
	"away_from" timestamp (3) with time zone,
	"away_until" timestamp (3) with time zone,
	"delegate" text,
	"note" text,
	"set_by" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "confirmation_requests" ADD COLUMN "on_behalf_of" text;--> statement-breakpoint
CREATE INDEX "people_away_person" ON "people_away" USING btree ("person","id");