/**
 * RFC 8785 canonical JSON of a JSON value (object keys sorted by UTF-16 code units, numbers
 * and strings as ECMAScript's JSON.stringify writes them), byte-identical to the
 * `canonicalize` package for JSON data (what JSON.parse returns), without its per-node Set
 * bookkeeping and string concatenation of parts. Throws a TypeError for what RFC 8785 has no
 * text for: NaN, infinities, strings with lone surrogates, values that are not JSON.
 */
import type { JsonObject, JsonValue } from "../manifest.js";

/** Strings with a lone surrogate have no I-JSON text (String.prototype.isWellFormed, ES2024). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Printable ASCII without quote or backslash: JSON.stringify would only add the quotes (a loop beats a regex on short keys). */
function plain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function str(s: string): string {
  if (plain(s)) return `"${s}"`;
  if (!wellFormed(s)) throw new TypeError("canonical JSON: lone surrogate in a string");
  return JSON.stringify(s);
}

function write(v: unknown): string {
  switch (typeof v) {
    case "string":
      return str(v);
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`canonical JSON: ${String(v)} is not a JSON number`);
      return String(v); // Number::toString, as JSON.stringify writes a finite number (-0 as "0")
    case "boolean":
      return v ? "true" : "false";
    case "object":
      break;
    default:
      throw new TypeError(`canonical JSON: a ${typeof v} is not a JSON value`);
  }
  if (v === null) return "null";
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      out += (i > 0 ? "," : "") + write(e === undefined ? null : e);
    }
    return out + "]";
  }
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw new TypeError("canonical JSON: an object with toJSON is not JSON data");
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const e = o[k];
    if (e === undefined) continue;
    out += (first ? "" : ",") + str(k) + ":" + write(e);
    first = false;
  }
  return out + "}";
}

export function canonicalJson(v: JsonValue): string {
  return write(v);
}

/**
 * The members of an object's canonical JSON in canonical order, each as its key and its
 * `"key":value` text: `{` + the texts joined by `,` + `}` is `canonicalJson(o)`, and so is
 * any subset of them for the object with only those keys.
 */
export function canonicalMembers(o: JsonObject): { readonly key: string; readonly text: string }[] {
  const keys = Object.keys(o).sort();
  const out: { key: string; text: string }[] = [];
  for (const k of keys) {
    const e = o[k];
    if (e === undefined) continue;
    out.push({ key: k, text: str(k) + ":" + write(e) });
  }
  return out;
}
