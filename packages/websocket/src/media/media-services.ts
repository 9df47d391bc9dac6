import type { MediaGenerator } from "@agentwire-chat/agents";

/** Route 2 (media generation) and `GET /api/assets/:id`; absent, route 2 answers `unavailable`. */
export type MediaServices = {
  generators: MediaGenerator[];
  /** Assets are written under `<dataDir>/assets/<user>/<id>`. */
  dataDir: string;
  /** Cap on the bytes of one generated asset; default 25 MiB. */
  maxAssetBytes?: number;
};
