CREATE TABLE `captcha_solutions` (
	`signature_hash` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `captcha_solutions_expires` ON `captcha_solutions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `lifecycle_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`subject_type` text NOT NULL,
	`subject_uuid` text NOT NULL,
	`app_uuid` text,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `lifecycle_tokens_subject` ON `lifecycle_tokens` (`subject_uuid`,`purpose`);--> statement-breakpoint
CREATE INDEX `lifecycle_tokens_expires` ON `lifecycle_tokens` (`expires_at`);