CREATE TABLE `verified_emails` (
	`subject_uuid` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`verified_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `claims` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `claims` text;--> statement-breakpoint
ALTER TABLE `lifecycle_tokens` ADD `email` text;