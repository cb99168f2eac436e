CREATE TABLE `admin_users` (
	`uuid` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`username_key` text NOT NULL,
	`email` text,
	`email_key` text,
	`name` text DEFAULT '' NOT NULL,
	`password_hash` text,
	`sysadmin` integer DEFAULT false NOT NULL,
	`activated` integer DEFAULT true NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`properties` text DEFAULT '{}' NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_users_username_key` ON `admin_users` (`username_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `admin_users_email_key` ON `admin_users` (`email_key`);--> statement-breakpoint
CREATE TABLE `applications` (
	`uuid` text PRIMARY KEY NOT NULL,
	`org_uuid` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`properties` text DEFAULT '{}' NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL,
	FOREIGN KEY (`org_uuid`) REFERENCES `organizations`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `applications_org_name` ON `applications` (`org_uuid`,`name_key`);--> statement-breakpoint
CREATE TABLE `connections` (
	`app_uuid` text NOT NULL,
	`source_uuid` text NOT NULL,
	`relation` text NOT NULL,
	`target_uuid` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`source_uuid`, `relation`, `target_uuid`),
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connections_target` ON `connections` (`target_uuid`,`relation`);--> statement-breakpoint
CREATE TABLE `credentials` (
	`client_id` text PRIMARY KEY NOT NULL,
	`owner_type` text NOT NULL,
	`owner_uuid` text NOT NULL,
	`client_secret` text NOT NULL,
	`created` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credentials_owner` ON `credentials` (`owner_type`,`owner_uuid`);--> statement-breakpoint
CREATE TABLE `entities` (
	`uuid` text PRIMARY KEY NOT NULL,
	`app_uuid` text NOT NULL,
	`collection` text NOT NULL,
	`type` text NOT NULL,
	`name` text,
	`name_key` text,
	`properties` text DEFAULT '{}' NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL,
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entities_app_collection_name` ON `entities` (`app_uuid`,`collection`,`name_key`);--> statement-breakpoint
CREATE INDEX `entities_app_collection_created` ON `entities` (`app_uuid`,`collection`,`created`);--> statement-breakpoint
CREATE TABLE `management_activities` (
	`uuid` text PRIMARY KEY NOT NULL,
	`org_uuid` text,
	`actor_uuid` text,
	`verb` text NOT NULL,
	`category` text NOT NULL,
	`title` text NOT NULL,
	`object_type` text NOT NULL,
	`object_uuid` text NOT NULL,
	`object_name` text NOT NULL,
	`created` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `management_activities_org` ON `management_activities` (`org_uuid`,`created`);--> statement-breakpoint
CREATE INDEX `management_activities_actor` ON `management_activities` (`actor_uuid`,`created`);--> statement-breakpoint
CREATE TABLE `org_admins` (
	`org_uuid` text NOT NULL,
	`user_uuid` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`org_uuid`, `user_uuid`),
	FOREIGN KEY (`org_uuid`) REFERENCES `organizations`(`uuid`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_uuid`) REFERENCES `admin_users`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_admins_user` ON `org_admins` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`uuid` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`activated` integer DEFAULT true NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`properties` text DEFAULT '{}' NOT NULL,
	`created` integer NOT NULL,
	`modified` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_name_key` ON `organizations` (`name_key`);