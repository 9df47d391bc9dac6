CREATE TABLE "queued_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"thread_id" text NOT NULL,
	"user_id" text NOT NULL,
	"mode" text NOT NULL,
	"priority" integer NOT NULL,
	"seq" integer NOT NULL,
	"data" text NOT NULL,
	"request_id" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "thread_summaries" DROP CONSTRAINT "thread_summaries_pkey";--> statement-breakpoint
ALTER TABLE "thread_summaries" ADD CONSTRAINT "thread_summaries_thread_id_through_message_id_pk" PRIMARY KEY("thread_id","through_message_id");--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "parent_id" text;--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "current_leaf_id" text;--> statement-breakpoint
ALTER TABLE "queued_messages" ADD CONSTRAINT "queued_messages_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queued_messages" ADD CONSTRAINT "queued_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "queued_messages_thread_idx" ON "queued_messages" USING btree ("thread_id");--> statement-breakpoint
-- Written by hand: the rows stored before branches become one branch, each message after the one before it.
UPDATE "messages" SET "parent_id" = "chain"."prev" FROM (
	SELECT "id", lag("id") OVER (PARTITION BY "thread_id" ORDER BY "seq") AS "prev" FROM "messages"
) AS "chain" WHERE "messages"."id" = "chain"."id" AND "chain"."prev" IS NOT NULL;--> statement-breakpoint
UPDATE "threads" SET "current_leaf_id" = (
	SELECT "m"."id" FROM "messages" AS "m" WHERE "m"."thread_id" = "threads"."id" ORDER BY "m"."seq" DESC LIMIT 1
);