ALTER TABLE `turns` ADD `checkpoint` text;--> statement-breakpoint
ALTER TABLE `turns` ADD `recoveries` integer DEFAULT 0 NOT NULL;