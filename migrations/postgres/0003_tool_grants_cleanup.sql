CREATE TABLE "tool_grants" (
	"thread_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "tool_grants_thread_id_tool_name_pk" PRIMARY KEY("thread_id","tool_name")
);
--> statement-breakpoint
DROP TABLE "pending_actions" CASCADE;--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" DROP COLUMN "last_seq";--> statement-breakpoint
ALTER TABLE "turns" DROP COLUMN "last_seq";