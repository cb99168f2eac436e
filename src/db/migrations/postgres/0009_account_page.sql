ALTER TABLE "browser_sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "user_factors" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "user_factors" ADD COLUMN "last_used" bigint;