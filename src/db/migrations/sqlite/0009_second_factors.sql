CREATE TABLE `recovery_codes` (
	`user_uuid` text NOT NULL,
	`code_hash` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`user_uuid`, `code_hash`)
);
--> statement-breakpoint
CREATE TABLE `user_factors` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`secret` text,
	`last_step` integer,
	`challenge` text,
	`credential` text,
	`created` integer NOT NULL,
	`modified` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `user_factors_user` ON `user_factors` (`user_uuid`);--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `amr` text;