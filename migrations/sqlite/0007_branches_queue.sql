CREATE TABLE `queued_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`user_id` text NOT NULL,
	`mode` text NOT NULL,
	`priority` integer NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	`request_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `queued_messages_thread_idx` ON `queued_messages` (`thread_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_thread_summaries` (
	`thread_id` text NOT NULL,
	`user_id` text NOT NULL,
	`summary` text NOT NULL,
	`through_message_id` text NOT NULL,
	`message_count` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`thread_id`, `through_message_id`),
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_thread_summaries`("thread_id", "user_id", "summary", "through_message_id", "message_count", "updated_at") SELECT "thread_id", "user_id", "summary", "through_message_id", "message_count", "updated_at" FROM `thread_summaries`;--> statement-breakpoint
DROP TABLE `thread_summaries`;--> statement-breakpoint
ALTER TABLE `__new_thread_summaries` RENAME TO `thread_summaries`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `messages` ADD `parent_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `current_leaf_id` text;--> statement-breakpoint
-- Written by hand: the rows stored before branches become one branch, each message after the one before it.
UPDATE `messages` SET `parent_id` = (
	SELECT `p`.`id` FROM `messages` AS `p`
	WHERE `p`.`thread_id` = `messages`.`thread_id` AND `p`.`seq` < `messages`.`seq`
	ORDER BY `p`.`seq` DESC LIMIT 1
);--> statement-breakpoint
UPDATE `threads` SET `current_leaf_id` = (
	SELECT `m`.`id` FROM `messages` AS `m` WHERE `m`.`thread_id` = `threads`.`id` ORDER BY `m`.`seq` DESC LIMIT 1
);