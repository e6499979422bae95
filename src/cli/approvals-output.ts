/** Table and JSON renderings of approvals for the CLI. */
import { quorumText } from "../approvals/quorum.js";
import type { ApprovalDetail, ApprovalPage } from "../approvals/types.js";
import type { DecideOutcome } from "../approvals/decide.js";
import type { ApprovalRecord } from "../store/store.js";

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const compact = (v: object): string => Object.entries(v).map(([k, x]) => `${k}=${JSON.stringify(x)}`).join(" ");

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

const statusText = (a: ApprovalRecord, nowMs: number): string => (a.status === "pending" && a.expires_at_ms <= nowMs ? "expired" : a.status);

export function listTable(page: ApprovalPage, nowMs: number): string {
  if (page.approvals.length === 0) return "no approvals match";
  const rows = page.approvals.map((a) => [a.id, a.tool, statusText(a, nowMs), a.requested_by, iso(a.created_at_ms), iso(a.expires_at_ms), clip(compact(a.preview), 60)]);
  const out = table(["id", "tool", "status", "requested_by", "created", "expires", "preview"], rows);
  return page.next_cursor === null ? out : `${out}\nmore: --cursor ${page.next_cursor}`;
}

export function detailText(a: ApprovalDetail, nowMs: number): string {
  const lines = [
    `approval      ${a.id}`,
    `tool          ${a.tool}`,
    `status        ${statusText(a, nowMs)}`,
    `tenant        ${a.tenant}`,
    `requested_by  ${a.requested_by}`,
    `policy reason ${a.policy_reason ?? "(not recorded)"}`,
    `run           ${a.run_id}`,
    `operation     ${a.operation_id ?? "(none)"}`,
    `created       ${iso(a.created_at_ms)}`,
    `expires       ${iso(a.expires_at_ms)}`,
    "",
    "preview (what is approved):",
    ...Object.entries(a.preview).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    "",
    "all arguments:",
    ...JSON.stringify(a.args, null, 2).split("\n").map((l) => `  ${l}`),
    "",
  ];
  if (a.events.length === 0) lines.push("decisions: none yet");
  else {
    lines.push("decisions:");
    lines.push(
      table(
        ["decision", "by", "at", "reason"],
        a.events.map((e) => [e.decision, e.approver, iso(e.decided_at_ms), e.reason ?? ""]),
      )
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n"),
    );
  }
  return lines.join("\n");
}

export function decisionText(id: string, out: DecideOutcome): string {
  if (!out.ok) return `${id}: ${out.why}: ${out.message}`;
  if (out.quorum !== undefined && !out.quorum.complete && out.edited === undefined) {
    return [`${id}: approval recorded, ${quorumText(out.quorum)}; the call runs once the quorum is complete`, ...out.warnings.map((w) => `warning: ${w}`)].join("\n");
  }
  const lines = [`${id}: ${out.approval.status} by ${out.approval.decision?.approver ?? "?"}`];
  if (out.edited !== undefined) lines.push(`edited call approved as ${out.edited.approval.id} (operation ${out.edited.operation_id}); the host resumes it with runtime.approvals.resume("${id}")`);
  for (const w of out.warnings) lines.push(`warning: ${w}`);
  return lines.join("\n");
}
