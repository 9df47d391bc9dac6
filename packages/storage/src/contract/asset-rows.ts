import { randomUUID } from "node:crypto";
import type { NewAsset } from "./repositories.js";
import type { AssetRow } from "./rows.js";

/** The record of the user's file already written to `asset.path`, under its id or a fresh one. */
export function newAssetRow(userId: string, asset: NewAsset, now: number): AssetRow {
  return {
    id: asset.id ?? randomUUID(),
    userId,
    threadId: asset.threadId,
    mimeType: asset.mimeType,
    bytes: asset.bytes,
    path: asset.path,
    createdAt: now,
  };
}
