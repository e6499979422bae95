/**
 * The list cursor: an opaque base64url token of the last row's (created_at_ms, id).
 * It comes back from callers, so it is decoded defensively.
 */
import { ApprovalsError } from "./errors.js";

export interface CursorPosition {
  readonly created_at_ms: number;
  readonly id: string;
}

export function encodeCursor(p: CursorPosition): string {
  return Buffer.from(JSON.stringify([p.created_at_ms, p.id]), "utf8").toString("base64url");
}

export function decodeCursor(token: string): CursorPosition {
  const bad = () => new ApprovalsError("invalid_cursor", "cursor: not a cursor returned by list; pass next_cursor unchanged or omit it");
  if (token.length > 600 || !/^[A-Za-z0-9_-]+$/.test(token)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== "string" || v[1].length === 0) throw bad();
  return { created_at_ms: v[0] as number, id: v[1] };
}
