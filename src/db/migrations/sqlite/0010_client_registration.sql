CREATE TABLE `client_registrations` (
	`client_id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`anonymous` integer NOT NULL,
	`created` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `oauth_clients`(`client_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `initial_access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`app_uuid` text NOT NULL,
	`token_hash` text NOT NULL,
	`count` integer NOT NULL,
	`remaining` integer NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `initial_access_tokens_hash` ON `initial_access_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `initial_access_tokens_app` ON `initial_access_tokens` (`app_uuid`,`created`);