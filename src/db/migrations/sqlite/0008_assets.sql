CREATE TABLE `asset_chunks` (
	`asset_uuid` text NOT NULL,
	`seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`asset_uuid`, `seq`),
	FOREIGN KEY (`asset_uuid`) REFERENCES `assets`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `assets` (
	`uuid` text PRIMARY KEY NOT NULL,
	`entity_uuid` text,
	`state` text NOT NULL,
	`storage` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`checksum` text NOT NULL,
	`created` integer NOT NULL,
	FOREIGN KEY (`entity_uuid`) REFERENCES `entities`(`uuid`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `assets_entity` ON `assets` (`entity_uuid`);--> statement-breakpoint
CREATE INDEX `assets_unlinked` ON `assets` (`state`,`created`) WHERE "assets"."entity_uuid" is null;