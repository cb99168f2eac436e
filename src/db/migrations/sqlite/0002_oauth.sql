CREATE TABLE `authorization_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`principal` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`scope` text NOT NULL,
	`code_challenge` text,
	`code_challenge_method` text,
	`nonce` text,
	`auth_time` integer NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`grant_id` text
);
--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`blocked_until` integer NOT NULL,
	`last_failure` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `oauth_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`app_uuid` text NOT NULL,
	`org_uuid` text NOT NULL,
	`secret_hash` text,
	`metadata` text NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL,
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_clients_app` ON `oauth_clients` (`app_uuid`,`created`);--> statement-breakpoint
CREATE TABLE `oauth_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`principal` text NOT NULL,
	`scope` text NOT NULL,
	`auth_time` integer NOT NULL,
	`created` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `oauth_grants_client` ON `oauth_grants` (`client_id`);--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`status` text NOT NULL,
	`scope` text NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`grant_id`) REFERENCES `oauth_grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_grant` ON `refresh_tokens` (`grant_id`);--> statement-breakpoint
CREATE TABLE `token_revocations` (
	`key` text PRIMARY KEY NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_revocations_expires` ON `token_revocations` (`expires_at`);