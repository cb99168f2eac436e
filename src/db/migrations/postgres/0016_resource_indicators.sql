ALTER TABLE "authorization_codes" ADD COLUMN "resources" jsonb;--> statement-breakpoint
ALTER TABLE "authorization_codes" ADD COLUMN "dpop_jkt" text;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "resources" jsonb;