ALTER TABLE "turns" ADD COLUMN "checkpoint" text;--> statement-breakpoint
ALTER TABLE "turns" ADD COLUMN "recoveries" integer DEFAULT 0 NOT NULL;