CREATE TABLE `tool_grants` (
	`thread_id` text NOT NULL,
	`tool_name` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`thread_id`, `tool_name`),
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `pending_actions`;--> statement-breakpoint
ALTER TABLE `turns` DROP COLUMN `last_seq`;