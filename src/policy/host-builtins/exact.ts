/**
 * Exact integers on the way back to the module. The SDK loads a result with
 * `JSON.stringify` unless it is an ArrayBuffer, which it takes as JSON text as-is;
 * integers beyond 2^53 (nanosecond timestamps, exabytes) go back that way so the
 * module's `opa_json_parse` keeps every digit.
 */

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export type HostNumber = number | ArrayBuffer;

export function exactInt(b: bigint): HostNumber {
  if (b <= SAFE && b >= -SAFE) return Number(b);
  return jsonText(b.toString());
}

/** Raw JSON text as the SDK's pre-stringified value form. */
export function jsonText(text: string): ArrayBuffer {
  const bytes = new TextEncoder().encode(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Reads a host result back as a JS value (tests): ArrayBuffer -> parsed, big ints as bigint. */
export function hostValue(v: unknown): unknown {
  if (!(v instanceof ArrayBuffer)) return v;
  const text = new TextDecoder().decode(v);
  return /^-?\d+$/.test(text) ? BigInt(text) : JSON.parse(text);
}

/** A number operand as a bigint (operands beyond 2^53 arrive already rounded by JSON.parse). */
export function toBigInt(n: number): bigint {
  return BigInt(Math.trunc(n));
}
