CREATE TABLE `device_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`device_code_hash` text NOT NULL,
	`user_code_hash` text NOT NULL,
	`client_id` text NOT NULL,
	`scope` text NOT NULL,
	`status` text NOT NULL,
	`principal` text,
	`auth_time` integer,
	`amr` text,
	`interval` integer NOT NULL,
	`last_polled_at` integer,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_authorizations_device_code` ON `device_authorizations` (`device_code_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `device_authorizations_user_code` ON `device_authorizations` (`user_code_hash`);--> statement-breakpoint
CREATE INDEX `device_authorizations_expires` ON `device_authorizations` (`expires_at`);