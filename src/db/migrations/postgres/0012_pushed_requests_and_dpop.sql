CREATE TABLE "pushed_authorization_requests" (
	"request_uri_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"params" text NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "dpop_jkt" text;--> statement-breakpoint
CREATE INDEX "pushed_authorization_requests_expires" ON "pushed_authorization_requests" USING btree ("expires_at");