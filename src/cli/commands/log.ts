import { InvalidArgumentError } from "commander";
import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import { opaDecisionEvent } from "../../runtime/decision-log.js";
import type { DecisionLogRecord, DecisionQuery } from "../../store/store.js";
import { registerLogChain } from "../log-chain.js";
import { addLogStoreOptions, openLogStore, parseSince } from "../log-store.js";
import type { LogStoreOptions } from "../log-store.js";
import type { RegisterCommand } from "./index.js";

interface LogOptions extends LogStoreOptions {
  readonly tenant?: string;
  readonly tool?: string;
  readonly reason?: string;
  readonly operation?: string;
  readonly since?: string;
  readonly shadowDisagrees?: boolean;
  readonly limit: number;
  readonly format: "pretty" | "json";
}

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
};
const format = (v: string): "pretty" | "json" => {
  if (v !== "pretty" && v !== "json") throw new InvalidArgumentError("must be pretty or json");
  return v;
};

/** One row per decision, newest first. */
export function formatLogTable(rows: readonly DecisionLogRecord[]): string {
  const head = ["TIME", "DECISION_ID", "TENANT", "TOOL", "DECISION", "REASON", "OUTCOME", "POLICY"];
  const cells = rows.map((r) => [
    new Date(r.at_ms).toISOString(),
    r.decision_id,
    r.tenant,
    r.tool,
    r.decision,
    r.reason ?? "-",
    r.outcome === "success" ? "success" : `${r.outcome}:${r.outcome_reason ?? "?"}`,
    `${(r.policy_version ?? "-").slice(0, 19)}${r.shadow?.disagrees === true ? ` (shadow: ${r.shadow.decision} ${r.shadow.reason})` : ""}`,
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i < c.length - 1 ? x.padEnd(width[i]!) : x)).join("  ");
  return [line(head), ...cells.map(line)].join("\n");
}

export const registerLog: RegisterCommand = (program, setExitCode) => {
  const log = program.command("log");
  registerLogChain(log, setExitCode);
  addLogStoreOptions(
    log
      .description("list logged decisions, newest first (OPA decision-log events with --format json)")
      .option("--tenant <tenant>", "only this tenant")
      .option("--tool <tool>", "only this tool")
      .option("--reason <reason>", "only this reason (the policy's or the envelope's)")
      .option("--operation <id>", "only this operation id")
      .option("--since <when>", "only decisions since a duration ago (1h, 30m, 7d) or an ISO time")
      .option("--shadow-disagrees", "only decisions where the shadow policy disagreed")
      .option("--limit <n>", "at most this many", positive, 100)
      .option("--format <format>", "pretty (a table) or json (an array of OPA decision-log events)", format, "pretty"),
  ).action(async (opts: LogOptions) => {
    let since: number | null = null;
    if (opts.since !== undefined) {
      since = parseSince(opts.since, Date.now(), parseDuration);
      if (since === null) {
        console.error(`toolgate log: --since ${JSON.stringify(opts.since)} is neither a duration (1h, 30m, 7d) nor an ISO time`);
        return setExitCode(2);
      }
    }
    const opened = await openLogStore("log", opts);
    if ("error" in opened) {
      console.error(opened.error);
      return setExitCode(opened.exitCode);
    }
    try {
      const query: DecisionQuery = {
        limit: opts.limit,
        ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        ...(opts.tool === undefined ? {} : { tool: opts.tool }),
        ...(opts.reason === undefined ? {} : { reason: opts.reason }),
        ...(opts.operation === undefined ? {} : { operation_id: opts.operation }),
        ...(since === null ? {} : { since_ms: since }),
        ...(opts.shadowDisagrees === true ? { shadow_disagrees: true } : {}),
      };
      const rows = await opened.store.listDecisions(query);
      if (opts.format === "json") console.log(JSON.stringify(rows.map(opaDecisionEvent), null, 2));
      else console.log(rows.length === 0 ? "no decisions match" : formatLogTable(rows));
    } finally {
      await opened.store.close();
    }
  });
};
