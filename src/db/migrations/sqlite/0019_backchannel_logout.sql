CREATE TABLE `logout_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`client_id` text NOT NULL,
	`sub` text,
	`sid` text,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`lease_until` integer,
	`error` text,
	`created` integer NOT NULL,
	`finished` integer
);
--> statement-breakpoint
CREATE INDEX `logout_deliveries_due` ON `logout_deliveries` (`due_at`) WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX `logout_deliveries_lease` ON `logout_deliveries` (`lease_until`) WHERE state = 'leased';--> statement-breakpoint
CREATE TABLE `session_clients` (
	`session_id_hash` text NOT NULL,
	`client_id` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`session_id_hash`, `client_id`),
	FOREIGN KEY (`session_id_hash`) REFERENCES `browser_sessions`(`id_hash`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `sid` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `sid` text;