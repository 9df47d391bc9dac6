ALTER TABLE "llm_calls" ADD COLUMN "operation" text DEFAULT 'turn' NOT NULL;--> statement-breakpoint
CREATE INDEX "llm_calls_user_time_idx" ON "llm_calls" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "llm_calls_thread_idx" ON "llm_calls" USING btree ("thread_id");