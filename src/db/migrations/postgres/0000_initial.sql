CREATE TABLE "admin_users" (
	"uuid" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"username_key" text NOT NULL,
	"email" text,
	"email_key" text,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text,
	"sysadmin" integer DEFAULT 0 NOT NULL,
	"activated" integer DEFAULT 1 NOT NULL,
	"disabled" integer DEFAULT 0 NOT NULL,
	"properties" jsonb DEFAULT '{}' NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_user_credentials" (
	"user_uuid" text PRIMARY KEY NOT NULL,
	"app_uuid" text NOT NULL,
	"password_hash" text NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_user_logins" (
	"app_uuid" text NOT NULL,
	"login_key" text NOT NULL,
	"kind" text NOT NULL,
	"user_uuid" text NOT NULL,
	CONSTRAINT "app_user_logins_app_uuid_login_key_pk" PRIMARY KEY("app_uuid","login_key")
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"uuid" text PRIMARY KEY NOT NULL,
	"org_uuid" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"properties" jsonb DEFAULT '{}' NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "authorization_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"principal" jsonb NOT NULL,
	"redirect_uri" text NOT NULL,
	"scope" text NOT NULL,
	"code_challenge" text,
	"code_challenge_method" text,
	"nonce" text,
	"auth_time" bigint NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"consumed_at" bigint,
	"grant_id" text
);
--> statement-breakpoint
CREATE TABLE "browser_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"realm" text NOT NULL,
	"principal" jsonb NOT NULL,
	"amr" text NOT NULL,
	"provider" text,
	"auth_time" bigint NOT NULL,
	"created" bigint NOT NULL,
	"last_seen" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "captcha_solutions" (
	"signature_hash" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collections" (
	"app_uuid" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"created" bigint NOT NULL,
	CONSTRAINT "collections_app_uuid_name_pk" PRIMARY KEY("app_uuid","name")
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"app_uuid" text NOT NULL,
	"source_uuid" text NOT NULL,
	"relation" text NOT NULL,
	"target_uuid" text NOT NULL,
	"created" bigint NOT NULL,
	CONSTRAINT "connections_source_uuid_relation_target_uuid_pk" PRIMARY KEY("source_uuid","relation","target_uuid")
);
--> statement-breakpoint
CREATE TABLE "consents" (
	"client_id" text NOT NULL,
	"user_uuid" text NOT NULL,
	"scope" text NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL,
	CONSTRAINT "consents_client_id_user_uuid_pk" PRIMARY KEY("client_id","user_uuid")
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"client_id" text PRIMARY KEY NOT NULL,
	"owner_type" text NOT NULL,
	"owner_uuid" text NOT NULL,
	"client_secret" text NOT NULL,
	"created" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "entities" (
	"uuid" text PRIMARY KEY NOT NULL,
	"app_uuid" text NOT NULL,
	"collection" text NOT NULL,
	"type" text NOT NULL,
	"name" text,
	"name_key" text,
	"properties" jsonb DEFAULT '{}' NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federated_identities" (
	"app_uuid" text NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_uuid" text NOT NULL,
	"created" bigint NOT NULL,
	CONSTRAINT "federated_identities_app_uuid_issuer_subject_pk" PRIMARY KEY("app_uuid","issuer","subject")
);
--> statement-breakpoint
CREATE TABLE "federation_requests" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"provider_uuid" text NOT NULL,
	"code_verifier" text NOT NULL,
	"nonce" text NOT NULL,
	"resume" text NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity_providers" (
	"uuid" text PRIMARY KEY NOT NULL,
	"app_uuid" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text,
	"scope" text NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lifecycle_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_uuid" text NOT NULL,
	"app_uuid" text,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"blocked_until" bigint NOT NULL,
	"last_failure" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "management_activities" (
	"uuid" text PRIMARY KEY NOT NULL,
	"org_uuid" text,
	"actor_uuid" text,
	"verb" text NOT NULL,
	"category" text NOT NULL,
	"title" text NOT NULL,
	"object_type" text NOT NULL,
	"object_uuid" text NOT NULL,
	"object_name" text NOT NULL,
	"created" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"app_uuid" text NOT NULL,
	"org_uuid" text NOT NULL,
	"secret_hash" text,
	"metadata" jsonb NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"principal" jsonb NOT NULL,
	"scope" text NOT NULL,
	"auth_time" bigint NOT NULL,
	"created" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "org_admins" (
	"org_uuid" text NOT NULL,
	"user_uuid" text NOT NULL,
	"created" bigint NOT NULL,
	CONSTRAINT "org_admins_org_uuid_user_uuid_pk" PRIMARY KEY("org_uuid","user_uuid")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"uuid" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"activated" integer DEFAULT 1 NOT NULL,
	"disabled" integer DEFAULT 0 NOT NULL,
	"properties" jsonb DEFAULT '{}' NOT NULL,
	"created" bigint NOT NULL,
	"modified" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_deliveries" (
	"id" bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY (sequence name "push_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_uuid" text NOT NULL,
	"notification_uuid" text NOT NULL,
	"device_uuid" text NOT NULL,
	"notifier_uuid" text NOT NULL,
	"provider" text NOT NULL,
	"token" text NOT NULL,
	"state" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"due_at" bigint NOT NULL,
	"expire_at" bigint,
	"lease_owner" text,
	"lease_until" bigint,
	"finished" bigint
);
--> statement-breakpoint
CREATE TABLE "push_notifier_secrets" (
	"notifier_uuid" text PRIMARY KEY NOT NULL,
	"secret" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"grant_id" text NOT NULL,
	"status" text NOT NULL,
	"scope" text NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alg" text NOT NULL,
	"use" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk" jsonb NOT NULL,
	"created" bigint NOT NULL,
	"retired_at" bigint,
	"expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "token_revocations" (
	"key" text PRIMARY KEY NOT NULL,
	"created" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_user_logins" ADD CONSTRAINT "app_user_logins_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_user_logins" ADD CONSTRAINT "app_user_logins_user_uuid_entities_uuid_fk" FOREIGN KEY ("user_uuid") REFERENCES "entities"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_org_uuid_organizations_uuid_fk" FOREIGN KEY ("org_uuid") REFERENCES "organizations"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federated_identities" ADD CONSTRAINT "federated_identities_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_requests" ADD CONSTRAINT "federation_requests_provider_uuid_identity_providers_uuid_fk" FOREIGN KEY ("provider_uuid") REFERENCES "identity_providers"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_providers" ADD CONSTRAINT "identity_providers_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_admins" ADD CONSTRAINT "org_admins_org_uuid_organizations_uuid_fk" FOREIGN KEY ("org_uuid") REFERENCES "organizations"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_admins" ADD CONSTRAINT "org_admins_user_uuid_admin_users_uuid_fk" FOREIGN KEY ("user_uuid") REFERENCES "admin_users"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_notification_uuid_entities_uuid_fk" FOREIGN KEY ("notification_uuid") REFERENCES "entities"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_notifier_secrets" ADD CONSTRAINT "push_notifier_secrets_notifier_uuid_entities_uuid_fk" FOREIGN KEY ("notifier_uuid") REFERENCES "entities"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_grant_id_oauth_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admin_users_username_key" ON "admin_users" USING btree ("username_key");--> statement-breakpoint
CREATE UNIQUE INDEX "admin_users_email_key" ON "admin_users" USING btree ("email_key");--> statement-breakpoint
CREATE INDEX "app_user_logins_user" ON "app_user_logins" USING btree ("user_uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "applications_org_name" ON "applications" USING btree ("org_uuid","name_key");--> statement-breakpoint
CREATE INDEX "browser_sessions_expires" ON "browser_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "captcha_solutions_expires" ON "captcha_solutions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "connections_target" ON "connections" USING btree ("target_uuid","relation");--> statement-breakpoint
CREATE INDEX "consents_user" ON "consents" USING btree ("user_uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_owner" ON "credentials" USING btree ("owner_type","owner_uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "entities_app_collection_name" ON "entities" USING btree ("app_uuid","collection","name_key");--> statement-breakpoint
CREATE INDEX "entities_app_collection_created" ON "entities" USING btree ("app_uuid","collection","created");--> statement-breakpoint
CREATE INDEX "federated_identities_user" ON "federated_identities" USING btree ("user_uuid");--> statement-breakpoint
CREATE INDEX "federation_requests_expires" ON "federation_requests" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "identity_providers_app_name" ON "identity_providers" USING btree ("app_uuid","name_key");--> statement-breakpoint
CREATE INDEX "lifecycle_tokens_subject" ON "lifecycle_tokens" USING btree ("subject_uuid","purpose");--> statement-breakpoint
CREATE INDEX "lifecycle_tokens_expires" ON "lifecycle_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "management_activities_org" ON "management_activities" USING btree ("org_uuid","created");--> statement-breakpoint
CREATE INDEX "management_activities_actor" ON "management_activities" USING btree ("actor_uuid","created");--> statement-breakpoint
CREATE INDEX "oauth_clients_app" ON "oauth_clients" USING btree ("app_uuid","created");--> statement-breakpoint
CREATE INDEX "oauth_grants_client" ON "oauth_grants" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "org_admins_user" ON "org_admins" USING btree ("user_uuid");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_name_key" ON "organizations" USING btree ("name_key");--> statement-breakpoint
CREATE INDEX "push_deliveries_due" ON "push_deliveries" USING btree ("provider","due_at") WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX "push_deliveries_lease" ON "push_deliveries" USING btree ("lease_until") WHERE state = 'leased';--> statement-breakpoint
CREATE INDEX "push_deliveries_expire" ON "push_deliveries" USING btree ("expire_at") WHERE state = 'queued' and expire_at is not null;--> statement-breakpoint
CREATE INDEX "push_deliveries_notification" ON "push_deliveries" USING btree ("notification_uuid","state");--> statement-breakpoint
CREATE INDEX "refresh_tokens_grant" ON "refresh_tokens" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "signing_keys_use" ON "signing_keys" USING btree ("use","retired_at");--> statement-breakpoint
CREATE INDEX "token_revocations_expires" ON "token_revocations" USING btree ("expires_at");