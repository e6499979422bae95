/**
 * Stand-ins for the Go builtins trivy-checks' tests call (trivy's pkg/iac/rego and
 * trivy-checks' pkg/rego register them in Go), for TOOLGATE_CORPUS_BUILTINS when
 * measuring trivy-checks (scripts/corpus-trivy.ts). They follow trivy's behaviour as
 * far as its checks' unit tests read it; they are test helpers, not product builtins.
 *   result.new(msg, cause)       {"msg": msg} plus the cause's __defsec_metadata fields
 *   isManaged(x)                 x.__defsec_metadata.managed, true when absent
 *   cidr.is_public(cidr)         not private, loopback, link-local, unspecified or CGNAT
 *   cidr.count_addresses(cidr)   2^(bits - prefix)
 *   sh.parse_commands(script)    the script's commands split on `&&`, `||`, `;`, `|`
 *                                and new lines, each as its words (quotes removed)
 *   squealer.scan_string(s)      {"transgressionFound": bool}: AWS access keys,
 *                                private key blocks and GitHub tokens
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

const privateRanges = new BlockList();
for (const [net, prefix] of [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["127.0.0.0", 8], ["169.254.0.0", 16], ["0.0.0.0", 8], ["100.64.0.0", 10]] as const) {
  privateRanges.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [["fc00::", 7], ["fe80::", 10], ["::1", 128], ["::", 128]] as const) privateRanges.addSubnet(net, prefix, "ipv6");

function splitCidr(cidr: string): { ip: string; family: 4 | 6; prefix: number } | null {
  const [ip = "", p] = cidr.split("/");
  const family = isIP(ip);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  const prefix = p === undefined ? bits : Number(p);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return null;
  return { ip, family: family as 4 | 6, prefix };
}

function words(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
  return out;
}

const SECRETS = [/\b(A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, /\bgh[pousr]_[A-Za-z0-9]{36}\b/];

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
      const meta = isObject(x) ? x["__defsec_metadata"] : undefined;
      if (!isObject(meta) || !("managed" in meta)) return true;
      return meta["managed"] === true;
    },
  },
  "cidr.is_public": {
    args: ["string"],
    result: "boolean",
    impl: (cidr) => {
      const c = splitCidr(cidr);
      if (c === null) return false;
      return !privateRanges.check(c.ip, c.family === 4 ? "ipv4" : "ipv6");
    },
  },
  "cidr.count_addresses": {
    args: ["string"],
    result: "number",
    impl: (cidr) => {
      const c = splitCidr(cidr);
      if (c === null) return 0;
      return 2 ** ((c.family === 4 ? 32 : 128) - c.prefix);
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
    impl: (s) => ({ transgressionFound: SECRETS.some((r) => r.test(s)) }),
  },
});
