CREATE TABLE "asset_chunks" (
	"asset_uuid" text NOT NULL,
	"seq" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "asset_chunks_asset_uuid_seq_pk" PRIMARY KEY("asset_uuid","seq")
);
--> statement-breakpoint
CREATE TABLE "assets" (
	"uuid" text PRIMARY KEY NOT NULL,
	"entity_uuid" text,
	"state" text NOT NULL,
	"storage" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"checksum" text NOT NULL,
	"created" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "asset_chunks" ADD CONSTRAINT "asset_chunks_asset_uuid_assets_uuid_fk" FOREIGN KEY ("asset_uuid") REFERENCES "assets"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_entity_uuid_entities_uuid_fk" FOREIGN KEY ("entity_uuid") REFERENCES "entities"("uuid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "assets_entity" ON "assets" USING btree ("entity_uuid");--> statement-breakpoint
CREATE INDEX "assets_unlinked" ON "assets" USING btree ("state","created") WHERE "assets"."entity_uuid" is null;