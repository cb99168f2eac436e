CREATE TABLE `pushed_authorization_requests` (
	`request_uri_hash` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`params` text NOT NULL,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pushed_authorization_requests_expires` ON `pushed_authorization_requests` (`expires_at`);--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `dpop_jkt` text;