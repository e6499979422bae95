/**
 * uuid.parse: the fields OPA decodes from a UUID (google/uuid's Parse: 36
 * characters with dashes, `urn:uuid:` or brace-wrapped forms, or 32 hex digits).
 * Version 1 and 2 UUIDs add their time (Unix ns), node id, MAC bits and clock
 * sequence; version 2 its id and domain. An unparsable string is undefined.
 */
import { jsonText } from "./exact.js";
import { stringOperand } from "./operands.js";

/** 100 ns intervals from 1582-10-15 (the Gregorian epoch) to 1970-01-01. */
const GREGORIAN_TO_UNIX = 122192928000000000n;
const DASH_INDEXES = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

function hexBytes(text: Buffer, at: readonly number[]): Uint8Array | null {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const pair = text.subarray(at[i]!, at[i]! + 2).toString("latin1");
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) return null;
    out[i] = parseInt(pair, 16);
  }
  return out;
}

function parseUuid(s: string): Uint8Array | null {
  let b = Buffer.from(s, "utf8");
  switch (b.length) {
    case 32:
      return hexBytes(b, Array.from({ length: 16 }, (_, i) => i * 2));
    case 36 + 9:
      if (b.subarray(0, 9).toString("latin1").toLowerCase() !== "urn:uuid:") return null;
      b = b.subarray(9);
      break;
    case 36 + 2:
      b = b.subarray(1); // google/uuid skips the first character without checking it is a brace
      break;
    case 36:
      break;
    default:
      return null;
  }
  if ([8, 13, 18, 23].some((i) => b[i] !== 0x2d)) return null;
  return hexBytes(b, DASH_INDEXES);
}

function variant(byte8: number): string {
  if ((byte8 & 0xc0) === 0x80) return "RFC4122";
  if ((byte8 & 0xe0) === 0xc0) return "Microsoft";
  if ((byte8 & 0xe0) === 0xe0) return "Future";
  return "Reserved";
}

function macVariables(first: number): string {
  if ((first & 0b11) === 0b11) return "local:multicast";
  if ((first & 0b01) === 0b01) return "global:multicast";
  if ((first & 0b10) === 0b10) return "local:unicast";
  return "global:unicast";
}

const DOMAINS = ["Person", "Group", "Org"];

/** The fields as JSON text: the time (~1.7e18 ns) must reach the module with every digit. */
export function uuidParse(uuid: unknown): ArrayBuffer | undefined {
  const u = parseUuid(stringOperand(uuid, 1));
  if (u === null) return undefined;
  const view = new DataView(u.buffer);
  const version = u[6]! >> 4;
  const out: Record<string, string | number> = { version, variant: variant(u[8]!) };
  let time: bigint | null = null;
  if (version === 1 || version === 2) {
    const t = BigInt(view.getUint32(0)) | (BigInt(view.getUint16(4)) << 32n) | (BigInt(view.getUint16(6) & 0xfff) << 48n);
    time = (t - GREGORIAN_TO_UNIX) * 100n;
    out["nodeid"] = [...u.subarray(10)].map((x) => x.toString(16).padStart(2, "0")).join("-");
    out["macvariables"] = macVariables(u[10]!);
    out["clocksequence"] = view.getUint16(8) & 0x3fff;
    if (version === 2) {
      out["id"] = view.getUint32(0);
      out["domain"] = DOMAINS[u[9]!] ?? `Domain${u[9]!}`;
    }
  }
  const text = JSON.stringify(out);
  return jsonText(time === null ? text : `${text.slice(0, -1)},"time":${time}}`);
}

export const uuidBuiltins = { "uuid.parse": uuidParse };
