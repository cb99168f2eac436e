CREATE TABLE `jti_replay` (
	`key` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jti_replay_expires` ON `jti_replay` (`expires_at`);