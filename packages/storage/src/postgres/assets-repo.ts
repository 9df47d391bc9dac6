import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { newAssetRow } from "../contract/asset-rows.js";
import type { AssetRow, AssetsRepo, NewAsset } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { assets } from "./schema/index.js";

/** Generated files' records, always scoped by the owning user: another user's asset reads as missing. */
export class PgAssetsRepo implements AssetsRepo {
  constructor(private readonly db: PgDb) {}

  /** A fresh asset id (the file is written under it before the row is stored). */
  newId(): string {
    return randomUUID();
  }

  /** Records a file already written to `path`. */
  async create(userId: string, asset: NewAsset, now = Date.now()): Promise<AssetRow> {
    const row = newAssetRow(userId, asset, now);
    await this.db.insert(assets).values(row);
    return row;
  }

  /** The asset if it exists and belongs to the user. */
  async get(userId: string, assetId: string): Promise<AssetRow | undefined> {
    const rows = await this.db
      .select()
      .from(assets)
      .where(and(eq(assets.id, assetId), eq(assets.userId, userId)))
      .limit(1);
    return rows[0];
  }

  /** The assets of one of the user's threads. */
  async listForThread(userId: string, threadId: string): Promise<AssetRow[]> {
    return this.db
      .select()
      .from(assets)
      .where(and(eq(assets.threadId, threadId), eq(assets.userId, userId)));
  }
}
