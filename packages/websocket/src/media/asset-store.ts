import { createHash } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MediaAsset } from "@agentwire-chat/agents";
import type { AssetRow, Repositories } from "@agentwire-chat/storage";

export const DEFAULT_MAX_ASSET_BYTES = 25 * 1024 * 1024;

/** The directory of a user's assets; a user id that is not a plain name is hashed, never used as a path. */
export function userAssetDir(dataDir: string, userId: string): string {
  const safe = /^[A-Za-z0-9_-]{1,64}$/.test(userId)
    ? userId
    : `u-${createHash("sha256").update(userId).digest("hex").slice(0, 32)}`;
  return join(dataDir, "assets", safe);
}

/**
 * Writes one generated file to `<dataDir>/assets/<user>/<id>` (mode 0600, never overwriting) and
 * records it; refuses a file over `maxBytes`. The file is removed again if the row cannot be stored.
 */
export async function storeAsset(
  repos: Repositories,
  where: { dataDir: string; userId: string; threadId: string; maxBytes: number },
  asset: MediaAsset,
): Promise<AssetRow> {
  if (asset.bytes.length > where.maxBytes) {
    throw new AssetTooLargeError(
      `the generated file is ${asset.bytes.length} bytes, over the ${where.maxBytes} byte limit`,
    );
  }
  const dir = userAssetDir(where.dataDir, where.userId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const id = repos.assets.newId();
  const path = join(dir, id);
  await writeFile(path, asset.bytes, { mode: 0o600, flag: "wx" });
  try {
    return await repos.assets.create(where.userId, {
      id,
      threadId: where.threadId,
      mimeType: asset.mimeType,
      bytes: asset.bytes.length,
      path,
    });
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}

export class AssetTooLargeError extends Error {
  override readonly name = "AssetTooLargeError";
}

/** The URL a client fetches an asset from (same auth as the rest of /api). */
export function assetUrl(id: string): string {
  return `/api/assets/${id}`;
}
