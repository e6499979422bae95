/**
 * Stand-ins for the Go builtins trivy-checks' tests call (trivy's pkg/iac/rego and
 * trivy-checks' pkg/rego register them in Go), for TOOLGATE_CORPUS_BUILTINS when
 * measuring trivy-checks (scripts/corpus-trivy.ts). They follow trivy's behaviour as
 * far as its checks' unit tests read it; they are test helpers, not product builtins.
 *   result.new(msg, cause)       {"msg": msg} plus the cause's __defsec_metadata fields
 *   isManaged(x)                 `managed` of x.__defsec_metadata (or of x), true when absent
 *   cidr.is_public(cidr)         "*", or a network not inside a private, loopback,
 *                                link-local, unspecified or CGNAT block
 *   cidr.count_addresses(cidr)   2^(bits - prefix), at most 2^64 - 1 ("*": 2^64 - 1)
 *   sh.parse_commands(script)    the script's commands split on `&&`, `||`, `;`, `|`
 *                                and new lines, each as its words (quotes removed)
 *   squealer.scan_string(s)      {"transgressionFound", "description"}: AWS access keys, private
 *                                key blocks, GitHub tokens, password/secret/token assignments
 */
import { BlockList, isIP } from "node:net";
import { defineBuiltins } from "../../src/policy/builtins/index.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const RESULT_FIELDS = ["startline", "endline", "filepath", "explicit", "managed", "fskey", "resource", "sourceprefix"];

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function metadataOf(cause: unknown): JsonObject {
  if (!isObject(cause)) return {};
  const m = cause["__defsec_metadata"];
  return isObject(m) ? m : cause;
}

const PRIVATE: readonly (readonly [string, number, "ipv4" | "ipv6"])[] = [
  ["10.0.0.0", 8, "ipv4"], ["172.16.0.0", 12, "ipv4"], ["192.168.0.0", 16, "ipv4"], ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"], ["0.0.0.0", 8, "ipv4"], ["100.64.0.0", 10, "ipv4"],
  ["fc00::", 7, "ipv6"], ["fe80::", 10, "ipv6"], ["::1", 128, "ipv6"], ["::", 128, "ipv6"],
];
const privateBlocks = PRIVATE.map(([net, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, prefix, family };
});

function splitCidr(cidr: string): { ip: string; family: 4 | 6; prefix: number } | null {
  const [ip = "", p] = cidr.split("/");
  const family = isIP(ip);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  const prefix = p === undefined ? bits : Number(p);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return null;
  return { ip, family: family as 4 | 6, prefix };
}

const UINT64_MAX = 2n ** 64n - 1n;

function words(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

const SECRETS = [
  /\b(A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\bgh[pousr]_[A-Za-z0-9]{36}\b/,
  /(password|passwd|secret|token|api_?key|access_?key)\w*\s*[=:]\s*\\?["']?[^\s"'\\]{6,}/i,
];

export default defineBuiltins({
  "result.new": {
    args: ["string", "any"],
    result: "object",
    impl: (msg, cause) => {
      const meta = metadataOf(cause);
      const out: JsonObject = { msg };
      for (const k of RESULT_FIELDS) if (k in meta) out[k] = meta[k]!;
      return out;
    },
  },
  isManaged: {
    args: ["any"],
    result: "boolean",
    impl: (x) => {
      const meta = metadataOf(x);
      return !("managed" in meta) || meta["managed"] === true;
    },
  },
  "cidr.is_public": {
    args: ["string"],
    result: "boolean",
    impl: (cidr) => {
      if (cidr === "*") return true;
      const c = splitCidr(cidr);
      if (c === null) return false;
      const family = c.family === 4 ? "ipv4" : "ipv6";
      // Public unless the whole network lies inside one private block.
      return !privateBlocks.some((b) => b.family === family && c.prefix >= b.prefix && b.list.check(c.ip, family));
    },
  },
  "cidr.count_addresses": {
    args: ["string"],
    result: "number",
    impl: (cidr) => {
      if (cidr === "*") return UINT64_MAX;
      const c = splitCidr(cidr);
      if (c === null) return 0;
      const n = 2n ** BigInt((c.family === 4 ? 32 : 128) - c.prefix);
      const capped = n > UINT64_MAX ? UINT64_MAX : n;
      return capped <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(capped) : capped;
    },
  },
  "sh.parse_commands": {
    args: ["string"],
    result: "array",
    impl: (script) =>
      script
        .replace(/\\\n/g, " ")
        .split(/&&|\|\||;|\||\n/)
        .map((c) => words(c.trim()))
        .filter((w) => w.length > 0),
  },
  "squealer.scan_string": {
    args: ["string"],
    result: "object",
    impl: (s) => {
      const hit = SECRETS.find((r) => r.test(s));
      return { transgressionFound: hit !== undefined, description: hit === undefined ? "" : "Potential secret" };
    },
  },
});
