ALTER TABLE "turns" ADD COLUMN "request_id" text;--> statement-breakpoint
CREATE INDEX "turns_request_idx" ON "turns" USING btree ("user_id","request_id");