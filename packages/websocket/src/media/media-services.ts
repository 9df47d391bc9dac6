import type { MediaGenerator } from "@agentwire-chat/agents";

/** The media route (media generation) and `GET /api/assets/:id`; absent, the media route answers `unavailable`. */
export type MediaServices = {
  generators: MediaGenerator[];
  /** Assets are written under `<dataDir>/assets/<user>/<id>`. */
  dataDir: string;
  /** Cap on the bytes of one generated asset; default 25 MiB. */
  maxAssetBytes?: number;
};
