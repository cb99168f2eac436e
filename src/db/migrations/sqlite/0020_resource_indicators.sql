ALTER TABLE `authorization_codes` ADD `resources` text;--> statement-breakpoint
ALTER TABLE `authorization_codes` ADD `dpop_jkt` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `resources` text;