ALTER TABLE `turns` ADD `request_id` text;--> statement-breakpoint
CREATE INDEX `turns_request_idx` ON `turns` (`user_id`,`request_id`);