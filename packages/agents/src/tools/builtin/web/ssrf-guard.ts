import type { LookupAddress, LookupOptions } from "node:dns";
import { promises as dns } from "node:dns";
import type { LookupFunction } from "node:net";
import { BlockList, isIP } from "node:net";

/** One resolved address, as node:dns `lookup({all: true})` returns it. */
export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a hostname to all its addresses; injectable so tests need no DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** An address verdict: allowed, or refused with the range it falls in. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

type Range = [network: string, prefix: number, label: string];

const IPV4_RANGES: Range[] = [
  ["0.0.0.0", 8, 'unspecified/"this network"'],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved/broadcast"],
];

// IPv6 forms that embed an IPv4 address are refused outright rather than unwrapped:
// whichever stack ends up routing them, there is no public IPv6 reason to use them.
const IPV6_RANGES: Range[] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::ffff:0:0", 96, "IPv4-mapped"],
  ["::", 96, "IPv4-compatible"],
  ["64:ff9b::", 96, "NAT64"],
  ["64:ff9b:1::", 48, "NAT64 (local-use)"],
  ["100::", 64, "discard-only"],
  ["2001::", 32, "Teredo"],
  ["2001:db8::", 32, "documentation"],
  ["2002::", 16, "6to4"],
  ["fc00::", 7, "unique local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

// One BlockList per (family, label), checked only for addresses of that family: a BlockList matches
// across families (it sees 8.8.8.8 inside ::ffff:0:0/96), which would blur the reasons.
const lists: { family: 4 | 6; label: string; list: BlockList }[] = [];
for (const [net, prefix, label] of [...IPV4_RANGES, ...IPV6_RANGES]) {
  const family = isIP(net) === 6 ? 6 : 4;
  let entry = lists.find((l) => l.family === family && l.label === label);
  if (!entry) {
    entry = { family, label, list: new BlockList() };
    lists.push(entry);
  }
  entry.list.addSubnet(net, prefix, family === 6 ? "ipv6" : "ipv4");
}

/** Classifies an IP literal: refused when loopback, private, link-local, multicast, reserved or IPv4-embedding. */
export function classifyAddress(address: string): AddressVerdict {
  const ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (ip.includes("%")) return { allowed: false, reason: `${ip} is a scoped (link-local) address` };
  const family = isIP(ip);
  if (family === 0) return { allowed: false, reason: `${ip} is not an IP address` };
  for (const { family: f, label, list } of lists) {
    if (f === family && list.check(ip, family === 6 ? "ipv6" : "ipv4")) {
      return { allowed: false, reason: `${ip} is ${/^[aeiou]/i.test(label) ? "an" : "a"} ${label} address` };
    }
  }
  return { allowed: true };
}

/** The system resolver: every address of a hostname, in the order the OS gives them. */
export const systemResolver: Resolver = async (hostname) => {
  const all = await dns.lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Why a lookup was refused; the error a guarded connection fails with. */
export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http/https/net that resolves with `resolve` and refuses the connection when any
 * resolved address is blocked. The socket connects to exactly the address checked here, so DNS
 * rebinding between check and connect is impossible. `allowAny` skips the check (operator allowlist).
 */
export function guardedLookup(resolve: Resolver, allowAny = false): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = addresses.filter((a) => !options.family || a.family === options.family);
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: "ENOTFOUND" }), "");
          return;
        }
        if (!allowAny) {
          for (const a of wanted) {
            const verdict = classifyAddress(a.address);
            if (!verdict.allowed) {
              callback(
                new BlockedAddressError(`${hostname} resolves to a blocked address: ${verdict.reason}`),
                "",
              );
              return;
            }
          }
        }
        const first = wanted[0] as ResolvedAddress;
        if (options.all) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        callback(Object.assign(e, { code: (e as NodeJS.ErrnoException).code ?? "ENOTFOUND" }), "");
      },
    );
  };
}
