CREATE TABLE "device_authorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"device_code_hash" text NOT NULL,
	"user_code_hash" text NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"status" text NOT NULL,
	"principal" jsonb,
	"auth_time" bigint,
	"amr" jsonb,
	"interval" bigint NOT NULL,
	"last_polled_at" bigint,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "device_authorizations_device_code" ON "device_authorizations" USING btree ("device_code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "device_authorizations_user_code" ON "device_authorizations" USING btree ("user_code_hash");--> statement-breakpoint
CREATE INDEX "device_authorizations_expires" ON "device_authorizations" USING btree ("expires_at");