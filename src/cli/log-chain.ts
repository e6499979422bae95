/**
 * `toolgate log verify` and `toolgate log export`: the audit chain checked from the store or
 * from an export file, and written as JSON Lines for a third party. Enters: parsed options.
 * Leaves: a report on stdout and an exit code (0 intact, 1 broken or bad input, 2 usage).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { exportLines, isChainExportError, isChainSource, parseExport, verifyChain } from "../store/chain/index.js";
import type { ChainHead, ChainSnapshot, ChainVerdict } from "../store/chain/index.js";
import { addLogStoreOptions, openLogStore } from "./log-store.js";
import type { LogStoreOptions } from "./log-store.js";
import { parseOutputFormat } from "./option-parsers.js";

type SetExitCode = (code: number) => void;

interface VerifyOptions extends LogStoreOptions {
  readonly tenant?: string;
  readonly file?: string;
  readonly anchor?: string;
  readonly format: "pretty" | "json";
}

interface ExportOptions extends LogStoreOptions {
  readonly tenant?: string;
  readonly out?: string;
}

export function formatVerdict(verdict: ChainVerdict): string {
  if (verdict.tenants.length === 0) return "no chained records";
  return verdict.tenants
    .map((t) => {
      const extra = [
        t.pruned > 0 ? `${t.pruned} pruned by retention (links kept)` : "",
        t.unchained > 0 ? `${t.unchained} unchained (written before the chain existed, not checked)` : "",
      ].filter((x) => x !== "");
      const tail = extra.length > 0 ? `; ${extra.join("; ")}` : "";
      if (t.broken === null) {
        const head = t.head === null ? "no head" : `head ${t.head.seq} ${t.head.link.slice(0, 16)}`;
        return `tenant ${t.tenant}: intact, ${t.records} records (${head})${tail}`;
      }
      const b = t.broken;
      const where = b.problem === "unlinked" ? "BROKEN" : `BROKEN at position ${b.seq}`;
      return `tenant ${t.tenant}: ${where}${b.id === null ? "" : ` (${b.kind} ${b.id})`}: ${b.problem}: ${b.message}${tail}`;
    })
    .join("\n");
}

/** Reads an export file; a located error line on failure. */
function readExport(file: string, what: string): ChainSnapshot | { readonly error: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { error: `${file}:1:1 file_not_found: cannot read the ${what} (${err instanceof Error ? err.message : String(err)})` };
  }
  try {
    return parseExport(text);
  } catch (err) {
    if (isChainExportError(err)) return { error: `${file}:${err.line}:1 chain_export_invalid: ${err.message}\n  hint: pass a file written by \`toolgate log export\`` };
    throw err;
  }
}

async function loadChain(command: string, opts: LogStoreOptions & { readonly tenant?: string }): Promise<ChainSnapshot | { readonly error: string; readonly exitCode: 1 | 2 }> {
  const opened = await openLogStore(command, opts);
  if ("error" in opened) return opened;
  try {
    if (!isChainSource(opened.store)) return { error: `toolgate ${command}: this store keeps no audit chain`, exitCode: 1 };
    return await opened.store.readChain(opts.tenant);
  } finally {
    await opened.store.close();
  }
}

export function registerLogChain(log: Command, setExitCode: SetExitCode): void {
  addLogStoreOptions(
    log
      .command("verify")
      .description("check the audit chain (the store's, or an export's with --file) and report each tenant's first broken link; exit 1 on a break")
      .option("--tenant <tenant>", "only this tenant")
      .option("--file <export.jsonl>", "verify an export offline, without a store")
      .option("--anchor <export.jsonl>", "also check the heads recorded in an earlier export: a chain rewritten from before them fails")
      .option("--format <format>", "pretty or json", parseOutputFormat, "pretty"),
  ).action(async (_opts: VerifyOptions, cmd: Command) => {
    // The listing (`log`) declares the same store options, so commander may give them to it.
    const opts = cmd.optsWithGlobals<VerifyOptions>();
    if (opts.file !== undefined && (opts.db !== undefined || opts.url !== undefined)) {
      console.error("toolgate log verify: pass either --file (an export) or a store (--db / --url), not both");
      return setExitCode(2);
    }
    let anchors: readonly ChainHead[] = [];
    if (opts.anchor !== undefined) {
      const anchor = readExport(opts.anchor, "anchor file");
      if ("error" in anchor) {
        console.error(anchor.error);
        return setExitCode(1);
      }
      anchors = anchor.heads;
    }
    const loaded = opts.file !== undefined ? readExport(opts.file, "export") : await loadChain("log verify", opts);
    if ("error" in loaded) {
      console.error(loaded.error);
      return setExitCode(opts.file === undefined && "exitCode" in loaded ? (loaded.exitCode as number) : 1);
    }
    const only = <T extends { readonly tenant: string }>(xs: readonly T[]): T[] => xs.filter((x) => opts.tenant === undefined || x.tenant === opts.tenant);
    const verdict = verifyChain({ records: only(loaded.records), pruned: only(loaded.pruned), heads: only(loaded.heads) }, only(anchors));
    console.log(opts.format === "json" ? JSON.stringify(verdict, null, 2) : formatVerdict(verdict));
    if (!verdict.ok) setExitCode(1);
  });

  addLogStoreOptions(
    log
      .command("export")
      .description("write the decision log and approval decisions with their chain links as JSON Lines (verify with `log verify --file`)")
      .option("--tenant <tenant>", "only this tenant")
      .option("--out <file>", "write to this file (default: stdout)"),
  ).action(async (_opts: ExportOptions, cmd: Command) => {
    const opts = cmd.optsWithGlobals<ExportOptions>();
    const loaded = await loadChain("log export", opts);
    if ("error" in loaded) {
      console.error(loaded.error);
      return setExitCode(loaded.exitCode);
    }
    const text = `${exportLines(loaded, Date.now()).join("\n")}\n`;
    if (opts.out === undefined) process.stdout.write(text);
    else {
      writeFileSync(opts.out, text);
      const heads = loaded.heads.map((h) => `${h.tenant}@${h.seq}`).join(", ");
      console.error(`wrote ${loaded.records.length} records to ${opts.out} (heads: ${heads === "" ? "none" : heads})`);
    }
  });
}
