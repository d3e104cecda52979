import { isIPv4, isIPv6 } from 'node:net';

/**
 * Where an IP address points. `public` is the internet; `private` and `loopback` are refused
 * unless a policy allows them; every other scope is refused always.
 */
export type AddressScope =
  'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

type Range = readonly [prefix: readonly number[], bits: number, scope: AddressScope];

// Most specific first: the first range containing the address decides.
const IPV4_RANGES: readonly Range[] = [
  [[100, 100, 100, 200], 32, 'metadata'], // Alibaba Cloud metadata, inside 100.64.0.0/10
  [[0], 8, 'unspecified'], // 0.0.0.0 connects to this host on Linux
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'], // includes 169.254.169.254 (AWS, GCP, Azure metadata)
  [[10], 8, 'private'],
  [[172, 16], 12, 'private'],
  [[192, 168], 16, 'private'],
  [[100, 64], 10, 'private'], // carrier-grade NAT, shared address space
  [[198, 18], 15, 'private'], // benchmarking networks
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'], // includes 255.255.255.255
];

const IPV6_RANGES: readonly Range[] = [
  [[0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128, 'metadata'], // fd00:ec2::254 (AWS)
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'link-local'], // deprecated site-local
  [[0xfc], 7, 'private'], // unique local
  [[0xff], 8, 'multicast'],
];

/** Scope of an IPv4 or IPv6 address in any form net.isIP accepts; throws on anything else. */
export function addressScope(address: string): AddressScope {
  const bytes = addressBytes(address);
  if (bytes.length === 4) return lookupRange(bytes, IPV4_RANGES);
  const embedded = embeddedIpv4(bytes);
  return embedded ? lookupRange(embedded, IPV4_RANGES) : lookupRange(bytes, IPV6_RANGES);
}

function lookupRange(bytes: readonly number[], ranges: readonly Range[]): AddressScope {
  for (const [prefix, bits, scope] of ranges) if (inPrefix(bytes, prefix, bits)) return scope;
  return 'public';
}

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const index = bit / 8;
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[index] & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIpv4(bytes: readonly number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12) && !zeros(12, 15)) return bytes.slice(12);
  if (inPrefix(bytes, [0, 0x64, 0xff, 0x9b], 96)) return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return null;
}

function addressBytes(text: string): number[] {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(address)) return address.split('.').map(Number);
  if (!isIPv6(address)) throw new Error(`${text} is not an IP address.`);
  // The URL serializer writes every IPv6 form (dotted tails included) as hex groups with one `::`.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined];
  const words = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const left = words(head);
  const right = words(tail);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((word) => [word >> 8, word & 0xff]);
}
