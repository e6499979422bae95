/** `toolgate approvals list|show|approve|reject|edit|revoke`: the approvals inbox from a terminal. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import { parseDecision } from "../../approvals/decide-as.js";
import type { DecisionKind } from "../../approvals/approver-checks.js";
import { decideAsApprover } from "../../approvals/decide-as.js";
import { isApprovalsError } from "../../approvals/errors.js";
import type { DecideOutcome } from "../../approvals/decide.js";
import { getApprovalDetail } from "../../approvals/get.js";
import { approvalListStatuses, listApprovals } from "../../approvals/list.js";
import { verificationText, verifyApprovalSignatures } from "../../approvals/verify.js";
import type { ApprovalVerification } from "../../approvals/verify.js";
import type { ApprovalStatus, Store } from "../../store/store.js";
import { selectApprovals } from "../approvals-bulk.js";
import type { BulkFilterFlags } from "../approvals-bulk.js";
import { CliInputError, approverFromFlags, isCliInputError, loadGenerated, openStoreFromFlags, projectApprovals } from "../approvals-env.js";
import type { ApproverFlags, ProjectFlags, StoreFlags } from "../approvals-env.js";
import { decisionText, detailText, listTable } from "../approvals-output.js";
import { collectRepeated } from "../role-flags.js";
import type { RegisterCommand } from "./index.js";

interface CommonFlags extends StoreFlags, ApproverFlags, ProjectFlags {
  readonly format: string;
}

function common(cmd: Command, withProject: boolean): Command {
  cmd
    .option("--db <file>", "SQLite store file")
    .option("--url <url>", "PostgreSQL URL (default: $TOOLGATE_PG_URL)")
    .option("--schema <name>", "PostgreSQL schema (default: $TOOLGATE_PG_SCHEMA or public)")
    .option("--as <user>", "required: your user id (recorded with the decision)")
    .option("--tenant <tenant>", "required: your tenant")
    .option("--role <role>", "one of your roles (repeatable)", collectRepeated)
    .option("--format <format>", "table or json", "table");
  if (withProject) {
    cmd
      .option("--generated <dir>", "the project's generated code (manifest, validators)", "generated")
      .option("--policy <file>", "compiled policy", "generated/policy.wasm")
      .option("--data <file>", "policy data", "policies/data.json");
  }
  return cmd;
}

function checkFormat(f: CommonFlags): "table" | "json" {
  if (f.format !== "table" && f.format !== "json") throw new CliInputError("usage_error", `--format ${JSON.stringify(f.format)}: use table or json`, "");
  return f.format;
}

async function run(setExitCode: (c: number) => void, f: CommonFlags, body: (store: Store) => Promise<number>): Promise<void> {
  let store: Store | null = null;
  try {
    checkFormat(f);
    store = await openStoreFromFlags(f);
    setExitCode(await body(store));
  } catch (err) {
    if (isCliInputError(err)) {
      console.error(`toolgate approvals:1:1 ${err.code}: ${err.message}${err.hint === "" ? "" : `\n  hint: ${err.hint}`}`);
      setExitCode(err.code === "usage_error" ? 2 : 1);
    } else if (isApprovalsError(err)) {
      console.error(`toolgate approvals:1:1 ${err.code}: ${err.message}`);
      setExitCode(1);
    } else {
      console.error(`toolgate approvals:1:1 store_error: ${err instanceof Error ? err.message : String(err)}\n  hint: check --db / --url and that the store is migrated (toolgate migrate)`);
      setExitCode(1);
    }
  } finally {
    await store?.close();
  }
}

const print = (f: CommonFlags, json: unknown, text: string): void => console.log(f.format === "json" ? JSON.stringify(json, null, 2) : text);

interface ListFlags extends CommonFlags {
  readonly status: string;
  readonly tool?: string;
  readonly requestedBy?: string;
  readonly olderThan?: string;
  readonly limit: string;
  readonly cursor?: string;
}

interface VerifyFlags extends CommonFlags {
  readonly all?: boolean;
}

interface DecideFlags extends CommonFlags, BulkFilterFlags {
  readonly reason?: string;
  readonly args?: string;
}

/** One approval's result in a batch: the decision, or why it was refused. */
type BulkResult = ({ readonly id: string } & DecideOutcome) | { readonly id: string; readonly ok: false; readonly why: string; readonly message: string };

/** `--args '{"amount": 5}'` or `--args @file.json`. */
function readArgs(text: string | undefined): unknown {
  if (text === undefined) throw new CliInputError("usage_error", "edit needs --args JSON (or --args @file.json): the full arguments of the edited call", "");
  const source = text.startsWith("@") ? readFileSync(text.slice(1), "utf8") : text;
  try {
    return JSON.parse(source);
  } catch (err) {
    throw new CliInputError("invalid_args", `--args is not JSON: ${err instanceof Error ? err.message : String(err)}`, "quote it for the shell: --args '{\"amount\": 5}'");
  }
}

export const registerApprovals: RegisterCommand = (program, setExitCode) => {
  const approvals = program.command("approvals").description("list, show and decide approvals (approve, reject, edit, revoke)");

  common(approvals.command("list").description("a tenant's approvals, newest first"), false)
    .option("--status <status>", `${approvalListStatuses.join(", ")} or all`, "pending")
    .option("--tool <name>", "only this tool")
    .option("--requested-by <user>", "only calls made for this user")
    .option("--older-than <duration>", "only approvals created longer ago than this (30s, 15m, 24h)")
    .option("--limit <n>", "page size (1-200)", "50")
    .option("--cursor <cursor>", "next page (printed after a full page)")
    .action((f: ListFlags) =>
      run(setExitCode, f, async (store) => {
        const who = approverFromFlags(f);
        let older: number | undefined;
        if (f.olderThan !== undefined) {
          const ms = parseDuration(f.olderThan);
          if (ms === null) throw new CliInputError("usage_error", `--older-than ${JSON.stringify(f.olderThan)}: use a duration like 30s, 15m, 24h`, "");
          older = Date.now() - ms;
        }
        if (!/^\d+$/.test(f.limit)) throw new CliInputError("usage_error", `--limit ${JSON.stringify(f.limit)}: a whole number from 1 to 200`, "");
        const page = await listApprovals(store, {
          tenant: who.tenant,
          limit: Number(f.limit),
          ...(f.status === "all" ? {} : { status: f.status as ApprovalStatus }),
          ...(f.tool === undefined ? {} : { tool: f.tool }),
          ...(f.requestedBy === undefined ? {} : { requested_by: f.requestedBy }),
          ...(older === undefined ? {} : { older_than: older }),
          ...(f.cursor === undefined ? {} : { cursor: f.cursor }),
        });
        print(f, page, listTable(page, Date.now()));
        return 0;
      }),
    );

  common(approvals.command("show").argument("<id>", "approval id").description("one approval: preview, all arguments, policy reason, requester, expiry, decisions"), false).action(
    (id: string, f: CommonFlags) =>
      run(setExitCode, f, async (store) => {
        const who = approverFromFlags(f);
        const a = await getApprovalDetail(store, id, Date.now());
        if (a === null || a.tenant !== who.tenant) {
          console.error(`toolgate approvals:1:1 not_found: approval ${id} does not exist in tenant ${who.tenant}`);
          return 1;
        }
        print(f, a, detailText(a, Date.now()));
        return 0;
      }),
  );

  const decider = (kind: DecisionKind, description: string): void => {
    const bulk = kind === "approve" || kind === "reject";
    const cmd = common(approvals.command(kind), true);
    if (bulk) {
      cmd
        .argument("[ids...]", "approval ids (or a filter instead)")
        .option("--tool <name>", "filter: the tenant's pending approvals of this tool")
        .option("--requested-by <user>", "filter: ... requested for this user")
        .option("--older-than <duration>", "filter: ... created longer ago than this (30s, 15m, 24h)")
        .option("--all", "filter: every pending approval of the tenant")
        .option("--yes", "decide what the filter selects (without it the selection is only listed)");
    } else cmd.argument("<id>", "approval id");
    cmd.description(description).option("--reason <text>", "why (recorded with the decision)");
    if (kind === "edit") cmd.option("--args <json>", "the full edited arguments as JSON, or @file.json");
    cmd.action((idArg: string | string[], f: DecideFlags) =>
      run(setExitCode, f, async (store) => {
        const who = approverFromFlags(f);
        const req = parseDecision({ decision: kind, reason: f.reason, ...(kind === "edit" ? { edited_args: readArgs(f.args) } : {}) });
        const selection = await selectApprovals(store, who.tenant, Array.isArray(idArg) ? idArg : [idArg], f, Date.now());
        if (selection.kind === "filter") {
          console.log(`${selection.matches.length} ${selection.description} approval(s) of tenant ${who.tenant} to ${kind}:`);
          if (selection.matches.length > 0) console.log(listTable({ approvals: selection.matches, next_cursor: null }, Date.now()));
          if (selection.matches.length === 0) return 0;
          if (f.yes !== true) {
            console.error(`toolgate approvals:1:1 confirmation_required: nothing was decided; run again with --yes to ${kind} these ${selection.matches.length} approval(s)`);
            return 1;
          }
        }
        const ids = selection.kind === "ids" ? selection.ids : selection.matches.map((a) => a.id);
        // One store connection and one project load for the batch; the approver rules apply to each approval.
        const api = await projectApprovals(store, f);
        const results: BulkResult[] = [];
        for (const id of ids) {
          const current = await api.get(id);
          if (current === null || current.tenant !== who.tenant) {
            console.error(`toolgate approvals:1:1 not_found: approval ${id} does not exist in tenant ${who.tenant}`);
            results.push({ id, ok: false, why: "not_found", message: `approval ${id} does not exist in tenant ${who.tenant}` });
            continue;
          }
          const out = await decideAsApprover(api, id, req, who);
          if (!out.ok) console.error(`toolgate approvals:1:1 ${decisionText(id, out)}`);
          else if (f.format !== "json") console.log(decisionText(id, out));
          results.push(out.ok ? { id, ...out } : { id, ok: false, why: out.why, message: out.message });
        }
        const refused = results.filter((r) => !r.ok).length;
        if (f.format === "json") console.log(JSON.stringify(ids.length === 1 && selection.kind === "ids" ? results[0] : { results }, null, 2));
        else if (results.length > 1) console.log(`${results.length - refused} ${kind === "approve" ? "approved" : "rejected"}, ${refused} refused`);
        return refused === 0 ? 0 : 1;
      }),
    );
  };
  common(
    approvals
      .command("verify")
      .argument("[id]", "approval id")
      .option("--all", "every approval of --tenant")
      .description("re-check every decision's passkey signature offline (store + registered public keys): signed, valid, invalid or unsigned; exit 1 when one is invalid or missing where required"),
    true,
  ).action((id: string | undefined, f: VerifyFlags) =>
    run(setExitCode, f, async (store) => {
      if ((id === undefined) === (f.all !== true)) throw new CliInputError("usage_error", "pass an approval id or --all (not both)", "toolgate approvals verify apr_… or toolgate approvals verify --all --tenant T");
      const { manifest } = await loadGenerated(f.generated);
      const approvalsToCheck = [];
      if (id !== undefined) {
        const a = await store.getApproval(id);
        if (a === null || (f.tenant !== undefined && a.tenant !== f.tenant)) {
          console.error(`toolgate approvals:1:1 not_found: approval ${id} does not exist${f.tenant === undefined ? "" : ` in tenant ${f.tenant}`}`);
          return 1;
        }
        approvalsToCheck.push(a);
      } else {
        if (f.tenant === undefined) throw new CliInputError("usage_error", "--all needs --tenant TENANT", "");
        let after: { created_at_ms: number; id: string } | undefined;
        for (;;) {
          const page = await store.listApprovals({ tenant: f.tenant, limit: 200, ...(after === undefined ? {} : { after }) });
          approvalsToCheck.push(...page);
          const last = page.at(-1);
          if (page.length < 200 || last === undefined) break;
          after = { created_at_ms: last.created_at_ms, id: last.id };
        }
      }
      const results: ApprovalVerification[] = [];
      for (const a of approvalsToCheck) results.push(await verifyApprovalSignatures(store, manifest, a));
      const failed = results.filter((r) => !r.ok).length;
      print(f, { ok: failed === 0, approvals: results }, [...results.map(verificationText), `${results.length} approvals checked, ${failed} failed`].join("\n"));
      return failed === 0 ? 0 : 1;
    }),
  );

  decider("approve", "approve pending calls, by id or by filter with --yes (the host then resumes each, or the caller retries)");
  decider("reject", "reject pending calls, by id or by filter with --yes");
  decider("edit", "approve the call with edited arguments (a new call, validated against the tool's schema)");
  decider("revoke", "withdraw a pending or given approval");
};
