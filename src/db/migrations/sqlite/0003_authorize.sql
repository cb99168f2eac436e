CREATE TABLE `browser_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`realm` text NOT NULL,
	`principal` text NOT NULL,
	`amr` text NOT NULL,
	`provider` text,
	`auth_time` integer NOT NULL,
	`created` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `browser_sessions_expires` ON `browser_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `consents` (
	`client_id` text NOT NULL,
	`user_uuid` text NOT NULL,
	`scope` text NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL,
	PRIMARY KEY(`client_id`, `user_uuid`)
);
--> statement-breakpoint
CREATE INDEX `consents_user` ON `consents` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `federated_identities` (
	`app_uuid` text NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_uuid` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`app_uuid`, `issuer`, `subject`),
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `federated_identities_user` ON `federated_identities` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `federation_requests` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`provider_uuid` text NOT NULL,
	`code_verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`resume` text NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`provider_uuid`) REFERENCES `identity_providers`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `federation_requests_expires` ON `federation_requests` (`expires_at`);--> statement-breakpoint
CREATE TABLE `identity_providers` (
	`uuid` text PRIMARY KEY NOT NULL,
	`app_uuid` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret` text,
	`scope` text NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL,
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identity_providers_app_name` ON `identity_providers` (`app_uuid`,`name_key`);--> statement-breakpoint
CREATE TABLE `server_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created` integer NOT NULL
);
