CREATE TABLE "recovery_codes" (
	"user_uuid" text NOT NULL,
	"code_hash" text NOT NULL,
	"created" bigint NOT NULL,
	CONSTRAINT "recovery_codes_user_uuid_code_hash_pk" PRIMARY KEY("user_uuid","code_hash")
);
--> statement-breakpoint
CREATE TABLE "user_factors" (
	"id" text PRIMARY KEY NOT NULL,
	"user_uuid" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"secret" text,
	"last_step" bigint,
	"challenge" text,
	"credential" jsonb,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "amr" jsonb;--> statement-breakpoint
CREATE INDEX "user_factors_user" ON "user_factors" USING btree ("user_uuid");