CREATE TABLE "verified_emails" (
	"subject_uuid" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"verified_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "authorization_codes" ADD COLUMN "claims" jsonb;--> statement-breakpoint
ALTER TABLE "lifecycle_tokens" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "claims" jsonb;