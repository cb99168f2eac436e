CREATE TABLE "passkey_challenges" (
	"challenge_hash" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_factors" ADD COLUMN "credential_id" text;--> statement-breakpoint
-- Passkeys registered before: their credential id, for a sign-in to find them by.
UPDATE "user_factors" SET "credential_id" = "credential" ->> 'id' WHERE "credential" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "passkey_challenges_expires" ON "passkey_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "user_factors_credential" ON "user_factors" USING btree ("credential_id");