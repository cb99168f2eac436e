CREATE TABLE "jti_replay" (
	"key" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jti_replay_expires" ON "jti_replay" USING btree ("expires_at");