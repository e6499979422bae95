/**
 * Bounds on what a model can make the gate store, log or echo: argument size (canonical
 * JSON bytes), tool-name length, and the length of any model-sent text quoted in a message.
 */

/** Runtime-wide default cap on a call's arguments, in bytes of canonical JSON. */
export const defaultMaxArgsBytes = 64 * 1024;

/** Longer names cannot be declared (tools.yaml: ^[a-z][a-z0-9_]{0,63}$), so they are never echoed. */
export const maxToolNameLength = 64;

/** How much of a model-sent value a message quotes. */
export const maxQuotedChars = 200;

/**
 * UTF-8 bytes of the value's JSON. For a JSON value this equals its RFC 8785 canonical
 * form's length (same number and string serialisation; only key order differs).
 */
export const jsonBytes = (json: string): number => Buffer.byteLength(json, "utf8");

/** At most `max` characters of `text`, marked when cut, with the full length. */
export function quote(text: string, max = maxQuotedChars): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** JSON of `value`, cut to a bounded preview. */
export function quoteJson(value: unknown, max = maxQuotedChars): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = "(unserialisable)";
  }
  return quote(text, max);
}

/** The tool name as it may be logged: a name longer than any declared one is not echoed. */
export function loggableToolName(tool: unknown): string {
  if (typeof tool !== "string") return `(not a string: ${typeof tool})`;
  return tool.length <= maxToolNameLength ? tool : `(a name of ${tool.length} characters)`;
}
