/**
 * Which approvals one `toolgate approvals approve|reject` decides: the ids named, or the
 * tenant's pending, unexpired approvals matching a filter (`--tool`, `--requested-by`,
 * `--older-than`, or `--all`), which are listed and decided only with `--yes`.
 */
import { parseDuration } from "../../codegen/toolsyaml/duration.js";
import { listApprovals } from "../approvals/list.js";
import type { ApprovalRecord, Store } from "../store/store.js";
import { CliInputError } from "./approvals-env.js";

export interface BulkFilterFlags {
  readonly tool?: string;
  readonly requestedBy?: string;
  readonly olderThan?: string;
  readonly all?: boolean;
  readonly yes?: boolean;
}

export type Selection =
  | { readonly kind: "ids"; readonly ids: readonly string[] }
  | { readonly kind: "filter"; readonly matches: readonly ApprovalRecord[]; readonly description: string };

const hasFilter = (f: BulkFilterFlags): boolean => f.tool !== undefined || f.requestedBy !== undefined || f.olderThan !== undefined || f.all === true;

/** The ids as given (duplicates dropped), or every match of the filter; a usage error for neither or both. */
export async function selectApprovals(store: Store, tenant: string, ids: readonly string[], f: BulkFilterFlags, nowMs: number): Promise<Selection> {
  if (ids.length > 0 && hasFilter(f)) {
    throw new CliInputError("usage_error", "name approval ids or a filter (--tool, --requested-by, --older-than, --all), not both", "");
  }
  if (ids.length > 0) return { kind: "ids", ids: [...new Set(ids)] };
  if (!hasFilter(f)) {
    throw new CliInputError("usage_error", "name the approvals to decide: one or more ids, or a filter (--tool NAME, --requested-by USER, --older-than 1h, --all) with --yes", "");
  }
  let olderThan: number | undefined;
  if (f.olderThan !== undefined) {
    const ms = parseDuration(f.olderThan);
    if (ms === null) throw new CliInputError("usage_error", `--older-than ${JSON.stringify(f.olderThan)}: use a duration like 30s, 15m, 24h`, "");
    olderThan = nowMs - ms;
  }
  const matches: ApprovalRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await listApprovals(store, {
      tenant,
      status: "pending",
      limit: 200,
      ...(f.tool === undefined ? {} : { tool: f.tool }),
      ...(f.requestedBy === undefined ? {} : { requested_by: f.requestedBy }),
      ...(olderThan === undefined ? {} : { older_than: olderThan }),
      ...(cursor === null ? {} : { cursor }),
    });
    // An expired approval can no longer be approved or rejected: not selected.
    matches.push(...page.approvals.filter((a) => a.expires_at_ms > nowMs));
    cursor = page.next_cursor;
  } while (cursor !== null);
  const description = [
    "pending",
    f.tool === undefined ? null : `tool ${f.tool}`,
    f.requestedBy === undefined ? null : `requested by ${f.requestedBy}`,
    f.olderThan === undefined ? null : `older than ${f.olderThan}`,
  ].filter((x) => x !== null).join(", ");
  return { kind: "filter", matches, description };
}
