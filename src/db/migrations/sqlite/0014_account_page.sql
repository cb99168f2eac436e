ALTER TABLE `user_factors` ADD `name` text;--> statement-breakpoint
ALTER TABLE `user_factors` ADD `last_used` integer;--> statement-breakpoint
ALTER TABLE `browser_sessions` ADD `user_agent` text;--> statement-breakpoint
ALTER TABLE `browser_sessions` ADD `address` text;