CREATE TABLE `app_user_credentials` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`app_uuid` text NOT NULL,
	`password_hash` text NOT NULL,
	`modified` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`alg` text NOT NULL,
	`use` text NOT NULL,
	`public_jwk` text NOT NULL,
	`private_jwk` text NOT NULL,
	`created` integer NOT NULL,
	`retired_at` integer,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `signing_keys_use` ON `signing_keys` (`use`,`retired_at`);