/**
 * The one place the client's address is read: from the header the deployment trusts
 * (`Config.clientAddressHeader`: Cloudflare's `CF-Connecting-IP` by default, none under a local
 * runtime), for the audit log and the failed-authentication window. Pure but for the request.
 */
import type { AppContext } from "./context";

/** IPv6 clients commonly hold a whole /64; counting single addresses would let one client rotate freely. */
const IPV6_PREFIX_GROUPS = 4;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/**
 * The request's client address, or null: none is trusted here (a local runtime, or
 * `TRUSTED_CLIENT_IP_HEADER=none`), the header is absent (a call from another Worker), or it
 * holds no address. A list (`X-Forwarded-For`) gives its last entry, the one the proxy in front
 * of the platform appended; the entries before it are the client's to write.
 */
export function clientAddress(c: AppContext): string | null {
  const header = c.var.config.clientAddressHeader;
  return header === null ? null : parseClientAddress(c.req.header(header));
}

/** A header value as an address (IPv4, or IPv6 in lower case), or null. Pure. */
export function parseClientAddress(header: string | null | undefined): string | null {
  if (header === null || header === undefined) return null;
  const value = (header.split(",").pop() ?? "").trim().toLowerCase();
  return IPV4.test(value) || expandIpv6(value) !== null ? value : null;
}

/**
 * What failures from `address` are counted under: the IPv4 address, or the /64 of an IPv6
 * address. Null for null. Pure.
 */
export function clientAddressKey(address: string | null): string | null {
  if (address === null) return null;
  if (IPV4.test(address)) return address;
  const groups = expandIpv6(address);
  if (groups === null) return null;
  return `${groups.slice(0, IPV6_PREFIX_GROUPS).join(":")}::/64`;
}

/** The eight groups of an IPv6 address without leading zeros, or null. IPv4-mapped forms keep their /64 (`::ffff:0:0`). */
function expandIpv6(value: string): string[] | null {
  if (value.length > 45 || !value.includes(":")) return null;
  let text = value;
  // A trailing dotted quad (`::ffff:1.2.3.4`) stands for the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [, head = "", quad = ""] = dotted;
    if (!IPV4.test(quad)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = quad.split(".").map(Number);
    text = `${head}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined): string[] | null => {
    if (part === undefined || part === "") return [];
    const items = part.split(":");
    return items.every((item) => HEX_GROUP.test(item)) ? items : null;
  };
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head.map(trimZeros) : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...Array<string>(missing).fill("0"), ...tail].map(trimZeros);
}

function trimZeros(group: string): string {
  return group.replace(/^0+(?=.)/, "");
}
