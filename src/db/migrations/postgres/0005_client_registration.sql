CREATE TABLE "client_registrations" (
	"client_id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"anonymous" integer NOT NULL,
	"created" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "initial_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"app_uuid" text NOT NULL,
	"token_hash" text NOT NULL,
	"count" bigint NOT NULL,
	"remaining" bigint NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "client_registrations" ADD CONSTRAINT "client_registrations_client_id_oauth_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "oauth_clients"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "initial_access_tokens" ADD CONSTRAINT "initial_access_tokens_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "initial_access_tokens_hash" ON "initial_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "initial_access_tokens_app" ON "initial_access_tokens" USING btree ("app_uuid","created");