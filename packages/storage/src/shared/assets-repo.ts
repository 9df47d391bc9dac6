import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { newAssetRow } from "../contract/asset-rows.js";
import type { AssetRow, AssetsRepo, NewAsset } from "../contract/repositories.js";
import type { Dialect } from "./dialect.js";

/** Generated files' records, always scoped by the owning user: another user's asset reads as missing. */
export class SharedAssetsRepo implements AssetsRepo {
  constructor(private readonly dialect: Dialect) {}

  /** A fresh asset id (the file is written under it before the row is stored). */
  newId(): string {
    return randomUUID();
  }

  /** Records a file already written to `path`. */
  async create(userId: string, asset: NewAsset, now = Date.now()): Promise<AssetRow> {
    const row = newAssetRow(userId, asset, now);
    await this.dialect.insert(this.dialect.tables.assets, row);
    return row;
  }

  /** The asset if it exists and belongs to the user. */
  async get(userId: string, assetId: string): Promise<AssetRow | undefined> {
    const { assets } = this.dialect.tables;
    return this.dialect.first<AssetRow>({
      table: assets,
      where: and(eq(assets.id, assetId), eq(assets.userId, userId)),
    });
  }

  /** The assets of one of the user's threads. */
  async listForThread(userId: string, threadId: string): Promise<AssetRow[]> {
    const { assets } = this.dialect.tables;
    return this.dialect.all<AssetRow>({
      table: assets,
      where: and(eq(assets.threadId, threadId), eq(assets.userId, userId)),
    });
  }
}
