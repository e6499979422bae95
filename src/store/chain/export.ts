/**
 * The audit chain as JSON Lines, so a third party can verify it without the store: a header
 * line, then one line per record (its content, position and links), per pruned record and
 * per tenant head. Enters: a snapshot or a file's text. Leaves: text, or a snapshot with
 * located errors.
 */
import type { ChainHead, ChainItem, ChainPruned, ChainRecord, ChainSnapshot } from "./records.js";

export const chainExportFormat = "toolgate-audit-chain/1";

export function exportLines(snapshot: ChainSnapshot, exportedAtMs: number): string[] {
  const order = (a: ChainRecord | ChainPruned, b: ChainRecord | ChainPruned): number =>
    a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : (a.seq ?? 0) - (b.seq ?? 0);
  const items: ChainItem[] = [...[...snapshot.records, ...snapshot.pruned].sort(order), ...snapshot.heads];
  return [
    JSON.stringify({ type: "header", format: chainExportFormat, exported_at_ms: exportedAtMs, link: "sha256(prev_link || sha256(rfc8785(content)))" }),
    ...items.map((it) => JSON.stringify(it)),
  ];
}

export class ChainExportError extends Error {
  override name = "ChainExportError";
  constructor(readonly line: number, message: string) {
    super(message);
  }
}
export const isChainExportError = (e: unknown): e is ChainExportError => e instanceof Error && e.name === "ChainExportError";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string";
const hex = (v: unknown): v is string => str(v) && /^[0-9a-f]{64}$/.test(v);
const pos = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;
const kind = (v: unknown): boolean => v === "decision" || v === "approval_decision";

/** Parses an export; throws ChainExportError naming the line of the first malformed one. */
export function parseExport(text: string): ChainSnapshot {
  const records: ChainRecord[] = [];
  const pruned: ChainPruned[] = [];
  const heads: ChainHead[] = [];
  const lines = text.split("\n");
  let sawHeader = false;
  for (const [i, line] of lines.entries()) {
    const n = i + 1;
    if (line.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new ChainExportError(n, `line ${n} is not JSON`);
    }
    if (!isObject(v)) throw new ChainExportError(n, `line ${n} is not a JSON object`);
    if (!sawHeader) {
      if (v["type"] !== "header" || v["format"] !== chainExportFormat) {
        throw new ChainExportError(n, `line ${n}: not a toolgate audit-chain export (the first line must be the header of format ${chainExportFormat})`);
      }
      sawHeader = true;
      continue;
    }
    const bad = (what: string): never => {
      throw new ChainExportError(n, `line ${n}: ${what}`);
    };
    if (!str(v["tenant"])) bad("tenant must be a string");
    if (v["type"] === "record") {
      if (!kind(v["kind"]) || !str(v["id"]) || !isObject(v["content"])) bad("a record needs kind, id and a content object");
      const seq = v["seq"] ?? null;
      if (seq !== null && !pos(seq)) bad("seq must be a positive integer or null");
      for (const k of ["prev_link", "link"]) if ((v[k] ?? null) !== null && !hex(v[k])) bad(`${k} must be 64 hex digits or null`);
      if (v["row"] !== undefined && !pos(v["row"])) bad("row must be a positive integer");
      records.push({ ...(v as unknown as ChainRecord), seq: seq as number | null, prev_link: (v["prev_link"] ?? null) as string | null, link: (v["link"] ?? null) as string | null });
    } else if (v["type"] === "pruned") {
      if (!kind(v["kind"]) || !str(v["id"]) || !pos(v["seq"]) || !hex(v["content_hash"]) || !hex(v["prev_link"]) || !hex(v["link"])) {
        bad("a pruned record needs kind, id, seq, content_hash, prev_link and link");
      }
      pruned.push(v as unknown as ChainPruned);
    } else if (v["type"] === "head") {
      if (!pos(v["seq"]) || !hex(v["link"])) bad("a head needs seq and link");
      heads.push(v as unknown as ChainHead);
    } else {
      bad(`unknown line type ${JSON.stringify(v["type"])} (record, pruned or head)`);
    }
  }
  if (!sawHeader) throw new ChainExportError(1, "empty file: not a toolgate audit-chain export");
  return { records, pruned, heads };
}
