CREATE TABLE "confirmation_voters" (
	"person" text NOT NULL,
	"request_created_at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	CONSTRAINT "confirmation_voters_person_request_created_at_request_id_pk" PRIMARY KEY("person","request_created_at","request_id")
);
--> statement-breakpoint
CREATE INDEX "confirmation_voters_request" ON "confirmation_voters" USING btree ("request_id");--> statement-breakpoint
-- The votes recorded before this table: each approval of a quorum request by someone other than its final responder.
INSERT INTO "confirmation_voters" ("person", "request_created_at", "request_id")
SELECT coalesce(e."detail"->>'person', e."actor"), r."created_at", r."id"
FROM "confirmation_requests" r JOIN "confirmation_events" e ON e."request_id" = r."id"
WHERE r."required_approvals" > 1 AND e."type" = 'approved' AND e."actor" IS NOT NULL
  AND coalesce(e."detail"->>'person', e."actor") IS DISTINCT FROM r."responded_by_person"
ON CONFLICT DO NOTHING;