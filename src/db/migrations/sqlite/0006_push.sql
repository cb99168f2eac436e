CREATE TABLE `push_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_uuid` text NOT NULL,
	`notification_uuid` text NOT NULL,
	`device_uuid` text NOT NULL,
	`notifier_uuid` text NOT NULL,
	`provider` text NOT NULL,
	`token` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`expire_at` integer,
	`lease_owner` text,
	`lease_until` integer,
	`finished` integer,
	FOREIGN KEY (`notification_uuid`) REFERENCES `entities`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `push_deliveries_due` ON `push_deliveries` (`provider`,`due_at`) WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX `push_deliveries_lease` ON `push_deliveries` (`lease_until`) WHERE state = 'leased';--> statement-breakpoint
CREATE INDEX `push_deliveries_expire` ON `push_deliveries` (`expire_at`) WHERE state = 'queued' and expire_at is not null;--> statement-breakpoint
CREATE INDEX `push_deliveries_notification` ON `push_deliveries` (`notification_uuid`,`state`);--> statement-breakpoint
CREATE TABLE `push_notifier_secrets` (
	`notifier_uuid` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	FOREIGN KEY (`notifier_uuid`) REFERENCES `entities`(`uuid`) ON UPDATE no action ON DELETE cascade
);
