/** net.cidr_contains / net.cidr_intersects / net.cidr_is_valid with Go's net.ParseIP / ParseCIDR rules. */
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

type Bytes = number[];

function parseV4(s: string): Bytes | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  const out: Bytes = [];
  for (const p of parts) {
    // Go rejects leading zeros (ambiguous octal) since 1.17.
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

function parseV6(s: string): Bytes | null {
  let tail: Bytes = [];
  let body = s;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = v4;
    body = s.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string): Bytes | null => {
    if (h === "") return [];
    const out: Bytes = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      const n = parseInt(g, 16);
      out.push(n >> 8, n & 0xff);
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const have = head.length + rest.length + tail.length;
  if (halves.length === 1) return have === 16 ? [...head, ...tail] : null;
  if (have > 14) return null;
  return [...head, ...new Array<number>(16 - have).fill(0), ...rest, ...tail];
}

/** Go's ParseIP, then To4 when the address is IPv4 or IPv4-mapped. */
export function parseIP(s: string): Bytes | null {
  if (s.includes(":")) {
    const v6 = parseV6(s);
    if (v6 === null) return null;
    const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
    return mapped ? v6.slice(12) : v6;
  }
  return parseV4(s);
}

interface Net { readonly ip: Bytes; readonly bits: number }

export function parseCIDR(s: string): Net | null {
  const slash = s.indexOf("/");
  if (slash < 0) return null;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(mask)) return null;
  let ip = addr.includes(":") ? parseV6(addr) : parseV4(addr);
  if (ip === null) return null;
  let bits = Number(mask);
  if (bits > ip.length * 8) return null;
  // An IPv4-mapped IPv6 network behaves as IPv4 in Go's Contains.
  if (ip.length === 16 && ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff && bits >= 96) {
    ip = ip.slice(12);
    bits -= 96;
  }
  return { ip: ip.map((b, i) => b & maskByte(bits, i)), bits };
}

const maskByte = (bits: number, i: number): number => {
  const n = Math.max(0, Math.min(8, bits - i * 8));
  return (0xff << (8 - n)) & 0xff;
};

function contains(net: Net, ip: Bytes): boolean {
  if (ip.length !== net.ip.length) return false;
  return ip.every((b, i) => (b & maskByte(net.bits, i)) === net.ip[i]);
}

function lastIP(net: Net): Bytes {
  return net.ip.map((b, i) => b | (~maskByte(net.bits, i) & 0xff));
}

function netOperand(v: unknown, pos: number): Net {
  const s = stringOperand(v, pos);
  const n = parseCIDR(s);
  if (n === null) throw builtinError(`invalid CIDR address: ${s}`);
  return n;
}

export function cidrContains(cidr: unknown, cidrOrIp: unknown): boolean {
  const a = netOperand(cidr, 1);
  const bStr = stringOperand(cidrOrIp, 1);
  const ip = parseIP(bStr);
  if (ip !== null) return contains(a, ip);
  const b = parseCIDR(bStr);
  if (b === null) throw builtinError(`not a valid textual representation of an IP address or CIDR: ${bStr}`);
  return contains(a, b.ip) && contains(a, lastIP(b));
}

export function cidrIntersects(a: unknown, b: unknown): boolean {
  const na = netOperand(a, 1);
  const nb = netOperand(b, 1);
  return contains(na, nb.ip) || contains(nb, na.ip);
}

export function cidrIsValid(v: unknown): boolean {
  return typeof v === "string" && parseCIDR(v) !== null;
}

export const netBuiltins = {
  "net.cidr_contains": cidrContains,
  "net.cidr_intersects": cidrIntersects,
  "net.cidr_is_valid": cidrIsValid,
};
