/**
 * The client address failed authentications are counted by: `CF-Connecting-IP`, which
 * Cloudflare's edge sets on every request from the internet (a value sent by the client is
 * replaced). Pure.
 */

/** IPv6 clients commonly hold a whole /64; counting single addresses would let one client rotate freely. */
const IPV6_PREFIX_GROUPS = 4;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/**
 * The counting key for a `CF-Connecting-IP` value: the IPv4 address, or the /64 of an IPv6
 * address. Null when the header is absent or is not an address: then the request did not come
 * through Cloudflare's edge (local development, tests, a call from another Worker), there is
 * no client address to hold to account, and failures are not counted.
 */
export function clientAddressKey(header: string | null | undefined): string | null {
  if (header === null || header === undefined) return null;
  const value = header.trim().toLowerCase();
  if (IPV4.test(value)) return value;
  const groups = expandIpv6(value);
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
