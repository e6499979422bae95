/**
 * A handler's thrown error: how it is classified and what is kept of it. The class comes from
 * the error itself (`transient` / `permanent` from handler-errors.ts) or from tools.yaml
 * `errors:` by its `code` or `name`, along the `cause` chain; anything else is undeclared,
 * and then the tool's effect class decides (invoke.ts). The model never sees the error's
 * text: its envelope names an error id, and the full message and stack, with the values of
 * the tool's `sensitive` arguments erased, go to the decision log and the span.
 * Enters: the error, the tool, the call's arguments. Leaves: the class and the logged detail.
 */
import type { FailureSpec, JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import type { HandlerErrorDetail } from "../store/store.js";
import { isPermanentError, isTransientError } from "./handler-errors.js";
import { quote } from "../call-data/limits.js";
import { storableText } from "../call-data/unstorable-text.js";

/** How far along `cause` a declaration or a mark is looked for. */
const maxCauseDepth = 8;
const maxMessageChars = 2_000;
const maxStackChars = 8_000;

export type ThrownClass =
  | { readonly class: "retryable"; readonly matched: string; readonly retry_after_ms: number | null }
  | { readonly class: "permanent"; readonly matched: string }
  | { readonly class: "undeclared" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const own = (o: Readonly<Record<string, FailureSpec>>, k: string): FailureSpec | undefined => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

const declared = (spec: FailureSpec, matched: string): ThrownClass =>
  spec.class === "permanent" ? { class: "permanent", matched } : { class: "retryable", matched, retry_after_ms: spec.retry_after_ms };

/** The thrown error's class: a mark or a declaration on the error or its causes (outermost first; per error: mark, code, name). */
export function classifyThrown(error: unknown, tool: ToolManifestEntry): ThrownClass {
  const classes = tool.errors ?? {};
  let e: unknown = error;
  for (let depth = 0; depth < maxCauseDepth && isObject(e); depth++, e = e.cause) {
    if (isTransientError(e)) {
      const after = e.retryAfterMs;
      return { class: "retryable", matched: "transient", retry_after_ms: typeof after === "number" && Number.isFinite(after) && after >= 0 ? after : null };
    }
    if (isPermanentError(e)) return { class: "permanent", matched: "permanent" };
    const code = typeof e.code === "string" || typeof e.code === "number" ? String(e.code) : null;
    const byCode = code === null ? undefined : own(classes, code);
    if (byCode !== undefined && code !== null) return declared(byCode, code);
    const name = typeof e.name === "string" ? e.name : null;
    const byName = name === null ? undefined : own(classes, name);
    if (byName !== undefined && name !== null) return declared(byName, name);
  }
  return { class: "undeclared" };
}

/** The error id the model is given: the decision id of the call's log entry, so the entry is found by it. */
export const errorIdOf = (decisionId: string): string => `e_${decisionId.replaceAll("-", "")}`;

/** The decision id an error id names, or null when `text` is not an error id. */
export function decisionIdOfError(text: string): string | null {
  const m = /^e_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(text.trim().toLowerCase());
  return m === null ? null : `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`;
}

/**
 * The texts of a sensitive argument's value that are erased wherever they appear: every string
 * and scalar inside it, each also as it reads inside JSON and inside a URL (error messages quote
 * request bodies and URLs).
 */
function sensitiveTexts(v: JsonValue | undefined, out: string[]): void {
  if (v === undefined || v === null) return;
  if (typeof v === "string") {
    if (v === "") return;
    out.push(v);
    const json = JSON.stringify(v).slice(1, -1);
    if (json !== v) out.push(json);
    const url = encodeURIComponent(v);
    if (url !== v) out.push(url);
  } else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) sensitiveTexts(x, out);
  else for (const x of Object.values(v)) sensitiveTexts(x, out);
}

/** `text` with every occurrence of the tool's sensitive argument values replaced by `[erased:<field>]`. */
function erase(text: string, secrets: readonly (readonly [field: string, value: string])[]): string {
  let out = text;
  for (const [field, value] of secrets) out = out.replaceAll(value, `[erased:${field}]`);
  return storable(out);
}

/** NUL cannot be stored in PostgreSQL text or jsonb (the outcome's whole commit would fail): shown as an escape instead. */
const storable = (text: string): string => (text.includes("\u0000") ? text.replaceAll("\u0000", "\\u0000") : text);

/** The logged detail of a thrown error: name, code, message and stack (bounded), with sensitive argument values erased. */
export function thrownDetail(error: unknown, errorId: string, treated: HandlerErrorDetail["treated_as"], matched: string | null, tool: ToolManifestEntry, args: JsonObject): HandlerErrorDetail {
  const secrets: [string, string][] = [];
  for (const field of tool.sensitive ?? []) {
    const texts: string[] = [];
    sensitiveTexts(args[field], texts);
    // Longest first, so a value that contains another is erased whole.
    for (const t of texts.sort((a, b) => b.length - a.length)) secrets.push([field, t]);
  }
  const e = isObject(error) ? error : null;
  const rawMessage = error instanceof Error ? error.message : typeof error === "string" ? error : safeString(error);
  const rawStack = e !== null && typeof e.stack === "string" ? e.stack : null;
  const message = erase(rawMessage, secrets);
  const stack = rawStack === null ? null : erase(rawStack, secrets);
  const code = e !== null && (typeof e.code === "string" || typeof e.code === "number") ? storableText(erase(quote(String(e.code), 64), secrets)) : null;
  const name = e !== null && typeof e.name === "string" ? storableText(erase(quote(e.name, 64), secrets)) : typeof error;
  const erased = secrets.filter(([, v]) => rawMessage.includes(v) || (rawStack?.includes(v) ?? false)).map(([f]) => f);
  return {
    error_id: errorId,
    treated_as: treated,
    matched,
    name,
    code,
    // Stored in the decision log: no NUL or unpaired surrogate (cutting can split a pair), so
    // the outcome that carries it is recorded on every store.
    message: storableText(quote(message, maxMessageChars)),
    stack: stack === null ? null : storableText(quote(stack, maxStackChars)),
    erased: [...new Set(erased)],
  };
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return "(unprintable)";
  }
}

/** Where invoke leaves the thrown error of a call, for the call's decision-log entry and span. */
export interface ThrownErrorSlot {
  readonly decision_id: string;
  thrown: HandlerErrorDetail | null;
}
