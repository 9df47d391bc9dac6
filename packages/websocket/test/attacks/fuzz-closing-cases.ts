/** Frames the protocol answers by closing the socket, for the fuzz test. */
import fc from "fast-check";
import { text } from "./fuzz-values.js";

/** A frame the protocol answers by closing the socket (docs/protocol.md, "Limits a client should know"). */
export interface ClosingCase {
  kind: string;
  bytes: Uint8Array;
  binary: boolean;
  closeCode: number;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const notUtf8 = fc.constantFrom(
  Uint8Array.of(0xff),
  Uint8Array.of(0xc3, 0x28),
  Uint8Array.of(0xc0, 0xaf),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
  Uint8Array.of(0xf8, 0x88, 0x80, 0x80, 0x80),
  Uint8Array.of(0xe2, 0x82),
);
const MIB = 1024 * 1024;

/** Text frames with bytes that are not UTF-8 (1007), and frames over the 1 MiB limit (1009). */
export const closingCaseArbitrary: fc.Arbitrary<ClosingCase> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(text(0, 20), notUtf8, text(0, 20)).map(([before, bad, after]) => ({
      kind: "text frame that is not UTF-8",
      bytes: concat(utf8(`{"command":"ping","data":{},"request_id":"${before}`), bad, utf8(`${after}"}`)),
      binary: false,
      closeCode: 1007,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.boolean()).map(([over, binary]) => ({
      kind: "frame over 1 MiB",
      bytes: utf8(`{"command":"ping","data":{},"request_id":"${"r".repeat(MIB + over - 43)}"}`),
      binary,
      closeCode: 1009,
    })),
  },
);
