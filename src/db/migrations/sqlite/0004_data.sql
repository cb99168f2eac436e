CREATE TABLE `app_user_logins` (
	`app_uuid` text NOT NULL,
	`login_key` text NOT NULL,
	`kind` text NOT NULL,
	`user_uuid` text NOT NULL,
	PRIMARY KEY(`app_uuid`, `login_key`),
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_uuid`) REFERENCES `entities`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `app_user_logins_user` ON `app_user_logins` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `collections` (
	`app_uuid` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`app_uuid`, `name`),
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
