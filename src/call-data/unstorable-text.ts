/**
 * Text no store can hold the same way: a NUL character (PostgreSQL text and jsonb refuse it,
 * SQLite keeps it) and an unpaired UTF-16 surrogate (jsonb refuses it, SQLite rewrites it).
 * The model's arguments and ids are refused with a typed error when they contain either
 * (`unstorablePath`), so both stores answer alike; text the gate itself records, such as a
 * handler's error message, is made storable instead (`storableEnvelope`), so a terminal
 * answer is always recorded. Identities from the host (context, approver) must be clean of any
 * control character (`isCleanIdentity`).
 */
import type { JsonValue } from "../manifest.js";

const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();
const toWellFormed = (s: string): string => (s as unknown as { toWellFormed(): string }).toWellFormed();

/** True when `s` has a NUL or an unpaired surrogate. */
export const isUnstorable = (s: string): boolean => s.includes("\u0000") || !wellFormed(s);

/** C0 and C1 controls and DEL (NUL among them). */
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;

/** An identity the host authenticated (tenant, user, run, role): a string without control characters or unpaired surrogates. */
export const isCleanIdentity = (v: unknown): v is string => typeof v === "string" && !controlCharacter.test(v) && wellFormed(v);

/** NUL becomes U+FFFD, as an unpaired surrogate does. */
export const storableText = (s: string): string => (isUnstorable(s) ? toWellFormed(s).replaceAll("\u0000", "\uFFFD") : s);

const pointerToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * The JSON pointer of the first string or member name in `value` with unstorable text, or
 * null. `json`: the value's JSON text (JSON.stringify), when known: such text is always
 * written as a `\u` escape there, so text without one needs no walk.
 */
export function unstorablePath(value: unknown, json?: string): string | null {
  if (json !== undefined && !json.includes("\\u")) return null;
  return walk(value, "");
}

function walk(value: unknown, at: string): string | null {
  if (typeof value === "string") return isUnstorable(value) ? at || "/" : null;
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], `${at}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    // The member name cannot be quoted in the pointer when it is the problem.
    if (isUnstorable(key)) return `${at}/(a member name)`;
    const found = walk(v, `${at}/${pointerToken(key)}`);
    if (found !== null) return found;
  }
  return null;
}

function storable(value: JsonValue): JsonValue {
  if (typeof value === "string") return storableText(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = storable(value[i]!);
      if (v !== value[i] && out === null) out = value.slice(0, i);
      if (out !== null) out.push(v);
    }
    return out ?? value;
  }
  let out: { [key: string]: JsonValue } | null = null;
  const entries = Object.entries(value);
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!;
    const k = storableText(key);
    const s = storable(v);
    if ((k !== key || s !== v) && out === null) {
      out = {};
      for (let j = 0; j < i; j++) Object.defineProperty(out, entries[j]![0], { value: entries[j]![1], enumerable: true, writable: true, configurable: true });
    }
    if (out !== null) Object.defineProperty(out, k, { value: s, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}

/** The envelope with every NUL and unpaired surrogate replaced by U+FFFD; the same object when it has none. */
export function storableEnvelope<E extends { readonly outcome: string }>(env: E): E {
  return storable(env as unknown as JsonValue) as unknown as E;
}
