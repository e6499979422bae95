import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import { opaDecisionEvent } from "../../runtime/decision-log.js";
import { decisionIdOfError } from "../../runtime/thrown-errors.js";
import type { DecisionLogRecord, DecisionQuery, HandlerErrorDetail } from "../../store/store.js";
import { registerLogChain } from "../log-chain.js";
import { addLogStoreOptions, openLogStore, parseSince } from "../log-store.js";
import { parseOutputFormat, parsePositiveInteger } from "../option-parsers.js";
import type { LogStoreOptions } from "../log-store.js";
import type { RegisterCommand } from "./index.js";

interface LogOptions extends LogStoreOptions {
  readonly tenant?: string;
  readonly tool?: string;
  readonly reason?: string;
  readonly operation?: string;
  readonly since?: string;
  readonly shadowDisagrees?: boolean;
  readonly error?: string;
  readonly limit: number;
  readonly format: "pretty" | "json";
}

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

/**
 * Where a decision was made, for a terminal: the gate's labels (`id`, `version`, `service`
 * first) and the call span's trace and span ids. No lines for an entry written before them.
 */
export function formatDecisionOrigin(r: DecisionLogRecord): string[] {
  const lines: string[] = [];
  if (r.labels !== null) {
    const first = ["service", "id", "version"].filter((k) => r.labels![k] !== undefined);
    const keys = [...first, ...Object.keys(r.labels).filter((k) => !first.includes(k))];
    lines.push(`labels     ${keys.map((k) => `${k}=${JSON.stringify(r.labels![k])}`).join(" ")}`);
  }
  if (r.trace_id !== null) lines.push(`trace      trace_id ${r.trace_id} span_id ${r.span_id ?? "-"}`);
  return lines;
}

/** A thrown handler error as logged, for a terminal: what the model was not told. */
export function formatHandlerError(e: HandlerErrorDetail): string {
  const lines = [
    `error ${e.error_id}: ${e.name}${e.code === null ? "" : ` (code ${e.code})`}, answered as ${e.treated_as}${e.matched === null ? " (undeclared)" : ` (matched ${e.matched})`}`,
    `  message  ${e.message}`,
  ];
  if (e.erased.length > 0) lines.push(`  erased   values of ${e.erased.join(", ")} (sensitive arguments)`);
  if (e.stack !== null) lines.push(`  stack    ${e.stack.split("\n").join("\n           ")}`);
  return lines.join("\n");
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
      .option("--error <error_id>", "the decision of the call whose handler threw this error (e_..., from the model's message), with the error's message and stack")
      .option("--limit <n>", "at most this many", parsePositiveInteger, 100)
      .option("--format <format>", "pretty (a table) or json (an array of OPA decision-log events)", parseOutputFormat, "pretty"),
  ).action(async (opts: LogOptions) => {
    let since: number | null = null;
    if (opts.since !== undefined) {
      since = parseSince(opts.since, Date.now(), parseDuration);
      if (since === null) {
        console.error(`toolgate log: --since ${JSON.stringify(opts.since)} is neither a duration (1h, 30m, 7d) nor an ISO time`);
        return setExitCode(2);
      }
    }
    const errorDecision = opts.error === undefined ? null : decisionIdOfError(opts.error);
    if (opts.error !== undefined && errorDecision === null) {
      console.error(`toolgate log: --error ${JSON.stringify(opts.error)} is not an error id\n  hint: an error id is e_ and 32 hex digits, as in "reserve_funds failed (error e_…)"`);
      return setExitCode(2);
    }
    const opened = await openLogStore("log", opts);
    if ("error" in opened) {
      console.error(opened.error);
      return setExitCode(opened.exitCode);
    }
    try {
      if (errorDecision !== null) {
        const record = await opened.store.getDecision(errorDecision);
        if (record === null) {
          console.error(`toolgate log: no decision for error ${opts.error ?? ""} in the store (purged after its retention, or another store)`);
          return setExitCode(1);
        }
        if (opts.format === "json") console.log(JSON.stringify([opaDecisionEvent(record)], null, 2));
        else {
          const origin = formatDecisionOrigin(record).map((line) => `\n  ${line}`).join("");
          console.log(`${formatLogTable([record])}${origin}${record.error === null ? "" : `\n\n${formatHandlerError(record.error)}`}`);
        }
        return;
      }
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
