/** The inbox's server-rendered pages. Every interpolated value goes through escapeHtml. */
import type { ApprovalDetail, ApprovalPage } from "../approvals/types.js";
import type { JsonObject } from "../manifest.js";
import type { ApproverContext } from "../approvals/approver.js";
import { approvalListStatuses } from "../approvals/list.js";
import type { ApproverCredential } from "../store/store.js";
import { quorumText } from "../approvals/quorum.js";
import type { QuorumState } from "../approvals/quorum.js";
import type { ArgChange } from "./args-diff.js";
import { escapeHtml as e, jsonHtml } from "./escape.js";
import type { NextStep } from "./next-step.js";

/** What the inbox shows about a tool besides its name (from the manifest). */
export interface ToolInfo {
  readonly description: string;
  readonly effect: string;
  /** `signed`: decisions need the approver's passkey signature; `quorum`, `quorum_roles`: several approvers. */
  readonly approval?: { readonly signed?: boolean; readonly quorum?: number; readonly quorum_roles?: readonly string[] } | null;
}
export type ToolCatalog = Readonly<Record<string, ToolInfo>>;

/** The catalog's entry for a tool name; own entries only (a name like `constructor` is not a tool). */
export const toolInfo = (tools: ToolCatalog, name: string): ToolInfo | undefined => (Object.hasOwn(tools, name) ? tools[name] : undefined);

/** Less than this share of the approval's time to live left, or less than EXPIRING_MS, marks it as expiring. */
export const EXPIRING_SHARE = 0.2;
export const EXPIRING_MS = 2 * 60_000;

/** True for a pending approval close to its expiry (and not yet past it). */
export function expiringSoon(a: { readonly status: string; readonly created_at_ms: number; readonly expires_at_ms: number }, nowMs: number): boolean {
  const left = a.expires_at_ms - nowMs;
  return a.status === "pending" && left > 0 && (left < EXPIRING_MS || left < EXPIRING_SHARE * (a.expires_at_ms - a.created_at_ms));
}

const remaining = (ms: number): string => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return s >= 3600 ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m` : s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
};

const style = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1f2937;color:#fff;padding:10px 24px;display:flex;justify-content:space-between;align-items:center}
header a{color:#fff;text-decoration:none;font-weight:600}main{padding:20px 24px;max-width:1000px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #d5d9de;padding:6px 10px;text-align:left;vertical-align:top}
th{background:#eef0f3}pre{background:#fff;border:1px solid #d5d9de;padding:10px;overflow:auto;margin:0}
.status{font-weight:600}.pending{color:#9a6700}.approved{color:#1a7f37}.rejected,.revoked{color:#cf222e}.edited{color:#0969da}
.flash{background:#dafbe1;border:1px solid #1a7f37;padding:8px 12px;margin-bottom:16px}.error{background:#ffebe9;border-color:#cf222e}.warning{background:#fff8c5;border-color:#9a6700}
form.inline{display:inline-block;margin-right:12px;vertical-align:top}textarea{width:100%;font:13px monospace}
button{padding:6px 14px;font-size:14px;cursor:pointer}.approve{background:#1a7f37;color:#fff;border:0}.reject{background:#cf222e;color:#fff;border:0}
.expiring{background:#fff8c5;color:#9a6700;font-weight:600;padding:0 6px;border:1px solid #9a6700;border-radius:3px}
.effect{font:12px monospace;padding:0 5px;border:1px solid #d5d9de;border-radius:3px;background:#eef0f3}.effect.destructive,.effect.external_write{border-color:#cf222e;color:#cf222e}
.next{background:#ddf4ff;border:1px solid #0969da;padding:8px 12px;margin-bottom:16px}header form{display:inline;margin-left:12px}header button{padding:2px 10px;font-size:13px}
.removed{background:#ffebe9}.added{background:#dafbe1}.changed{background:#fff8c5}dl{display:grid;grid-template-columns:180px 1fr;gap:4px 12px}dt{font-weight:600}`;

/** `signOutCsrf`: the CSRF token for the header's sign-out form; null shows no sign-out button. */
export function layout(title: string, who: ApproverContext | null, body: string, signOutCsrf: string | null = null, script = false): string {
  const signOut =
    signOutCsrf === null
      ? ""
      : `<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${e(signOutCsrf)}"><button id="sign-out">Sign out</button></form>`;
  const user =
    who === null
      ? ""
      : `<span>${e(who.user)} · tenant ${e(who.tenant)}${who.roles.length > 0 ? ` · ${e(who.roles.join(", "))}` : ""}${signOut}</span>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${e(title)} · toolgate approvals</title><style>${style}</style>${script ? `<script src="/assets/passkeys.js"></script>` : ""}</head>
<body><header><a href="/approvals">toolgate approvals</a>${who === null ? "" : ` <a href="/passkeys" id="passkeys-link">Passkeys</a>`}${user}</header><main>${body}</main></body></html>`;
}

const time = (ms: number): string => `<time datetime="${e(new Date(ms).toISOString())}">${e(new Date(ms).toISOString().replace("T", " ").slice(0, 19))} UTC</time>`;
const status = (s: string, expired = false): string => `<span class="status ${e(s)}">${e(expired ? "expired" : s)}</span>`;
const compact = (v: JsonObject): string => e(Object.entries(v).map(([k, x]) => `${k}=${JSON.stringify(x)}`).join(", "));

const effectBadge = (info: ToolInfo | undefined): string => (info === undefined ? "" : `<span class="effect ${e(info.effect)}">${e(info.effect)}</span>`);
const expiringMark = (a: ApprovalPage["approvals"][number], nowMs: number): string =>
  expiringSoon(a, nowMs) ? ` <span class="expiring" title="little of its time to live is left">expires in ${e(remaining(a.expires_at_ms - nowMs))}</span>` : "";

export interface ListView {
  readonly who: ApproverContext;
  readonly page: ApprovalPage;
  readonly filter: string;
  readonly nowMs: number;
  readonly nextHref: string | null;
  readonly tools: ToolCatalog;
  /** For the sign-out form; null: no sign-out button. */
  readonly csrf: string | null;
}

export function listPage(v: ListView): string {
  const { who, page, filter, nowMs, nextHref, tools } = v;
  const rows = page.approvals
    .map((a) => {
      const info = toolInfo(tools, a.tool);
      return `<tr data-approval="${e(a.id)}"${expiringSoon(a, nowMs) ? ' class="expiring-soon"' : ""}><td><a href="/approvals/${e(encodeURIComponent(a.id))}">${e(a.tool)}</a> ${effectBadge(info)}${info === undefined ? "" : `<div class="description">${e(info.description)}</div>`}</td>
<td>${compact(a.preview)}</td><td>${e(a.requested_by)}</td><td>${time(a.created_at_ms)}</td><td>${time(a.expires_at_ms)}${expiringMark(a, nowMs)}</td>
<td>${status(a.status, a.status === "pending" && a.expires_at_ms <= nowMs)}</td></tr>`;
    })
    .join("");
  const filters = [...approvalListStatuses, "all"]
    .map((s) => (s === filter ? `<strong>${e(s)}</strong>` : `<a href="/approvals?status=${e(s)}">${e(s)}</a>`))
    .join(" · ");
  return layout(
    "Approvals",
    who,
    `<h1>Approvals for tenant ${e(who.tenant)}</h1><p>${filters}</p>
${page.approvals.length === 0 ? `<p id="empty">No ${e(filter === "all" ? "" : filter)} approvals.</p>` : `<table id="approvals"><thead><tr><th>tool</th><th>preview</th><th>requested by</th><th>created</th><th>expires</th><th>status</th></tr></thead><tbody>${rows}</tbody></table>`}
${nextHref === null ? "" : `<p><a id="next" href="${e(nextHref)}">Next page</a></p>`}`,
    v.csrf,
  );
}

function diffTable(changes: readonly ArgChange[]): string {
  if (changes.length === 0) return `<p>No change to the arguments.</p>`;
  const cell = (v: unknown): string => (v === undefined ? "" : `<code>${e(JSON.stringify(v))}</code>`);
  return `<table id="diff"><thead><tr><th>field</th><th>change</th><th>original</th><th>edited</th></tr></thead><tbody>${changes
    .map((c) => `<tr class="${e(c.kind)}"><td><code>${e(c.path)}</code></td><td>${e(c.kind)}</td><td>${cell(c.before)}</td><td>${cell(c.after)}</td></tr>`)
    .join("")}</tbody></table>`;
}

export interface DetailView {
  readonly who: ApproverContext;
  readonly a: ApprovalDetail;
  readonly csrf: string;
  readonly nowMs: number;
  readonly flash: string | null;
  readonly error: string | null;
  /** For an edited approval: the change it made. */
  readonly editDiff: readonly ArgChange[] | null;
  /** What the decision just made warned of (policy versions), shown once after it. */
  readonly warnings?: readonly string[];
  /** What happens to the call next. */
  readonly next: NextStep;
  /** The tool's description and effect class; undefined when the catalog does not know it. */
  readonly tool: ToolInfo | undefined;
  /** Show the sign-out button. */
  readonly signOut: boolean;
  /** The figures of the call's limits now (pending approvals only). */
  readonly limitLines?: readonly string[];
  /** Approve, edit and reject are signed with the approver's passkey. */
  readonly signed?: boolean;
  /** The quorum the call needs and who approved so far; null: one approval is enough. */
  readonly quorum?: QuorumState | null;
}

function warningsBox(warnings: readonly string[]): string {
  if (warnings.length === 0) return "";
  return `<div class="flash warning" id="warnings"><strong>Warning:</strong><ul>${warnings.map((w) => `<li>${e(w)}</li>`).join("")}</ul></div>`;
}

export function detailPage(v: DetailView): string {
  const { a, csrf } = v;
  const expired = a.status === "pending" && a.expires_at_ms <= v.nowMs;
  const decidable = a.status === "pending" && !expired;
  const action = `/approvals/${e(encodeURIComponent(a.id))}`;
  const signed = v.signed === true;
  const hidden = `<input type="hidden" name="_csrf" value="${e(csrf)}">`;
  const sign = signed ? ` data-sign="/api/approvals/${e(encodeURIComponent(a.id))}/signing"` : "";
  const assertionField = signed ? `<input type="hidden" name="assertion" value="">` : "";
  const preview = Object.entries(a.preview)
    .map(([k, x]) => `<tr><th>${e(k)}</th><td><code>${e(JSON.stringify(x))}</code></td></tr>`)
    .join("");
  const events = a.events
    .map((ev) => `<tr><td>${e(ev.decision)}</td><td>${e(ev.approver)}</td><td>${time(ev.decided_at_ms)}</td><td>${e(ev.reason ?? "")}</td></tr>`)
    .join("");
  const controls = decidable
    ? `<h2>Decide</h2>
${signed ? `<p id="signed-note">Decisions on this tool are signed with your passkey. <span id="passkey-status"></span></p>` : ""}
<form class="inline" method="post" action="${action}/decide"${sign}>${hidden}${assertionField}<input type="hidden" name="decision" value="approve">
<input name="reason" placeholder="reason (optional)" aria-label="approve reason"> <button class="approve" id="approve">Approve</button></form>
<form class="inline" method="post" action="${action}/decide"${sign}>${hidden}${assertionField}<input type="hidden" name="decision" value="reject">
<input name="reason" placeholder="reason" aria-label="reject reason"> <button class="reject" id="reject">Reject</button></form>
<h3>Edit the arguments</h3>
<form method="post" action="${action}/edit">${hidden}<textarea name="edited_args" id="edited_args" rows="8">${jsonHtml(a.args)}</textarea>
<p><input name="reason" placeholder="reason (optional)" aria-label="edit reason"> <button id="edit">Review edit</button></p></form>`
    : a.status === "approved"
      ? `<form method="post" action="${action}/decide">${hidden}<input type="hidden" name="decision" value="revoke"><button id="revoke">Revoke approval</button></form>`
      : "";
  return layout(
    `${a.tool} ${a.id}`,
    v.who,
    `${v.flash === null ? "" : `<div class="flash" id="flash">${e(v.flash)}</div>`}${warningsBox(v.warnings ?? [])}${v.error === null ? "" : `<div class="flash error" id="error">${e(v.error)}</div>`}
<div class="next" id="next-step" data-state="${e(v.next.state)}"><strong>What happens next:</strong> ${e(v.next.text)}</div>
${v.quorum == null ? "" : `<p id="quorum" data-have="${v.quorum.have}" data-need="${v.quorum.need}"><strong>Quorum:</strong> ${e(quorumText(v.quorum))}</p>`}
<h1>${e(a.tool)} ${status(a.status, expired)} ${effectBadge(v.tool)}</h1>
${v.tool === undefined ? "" : `<p id="tool-description">${e(v.tool.description)}</p>`}
<dl><dt>effect</dt><dd id="tool-effect">${e(v.tool?.effect ?? "(unknown tool)")}</dd><dt>approval</dt><dd><code>${e(a.id)}</code></dd><dt>requested by</dt><dd id="requester">${e(a.requested_by)}</dd>
<dt>policy's reason</dt><dd id="policy-reason">${e(a.policy_reason ?? "(not recorded)")}</dd>
<dt>run</dt><dd><code>${e(a.run_id)}</code></dd><dt>operation</dt><dd><code>${e(a.operation_id ?? "")}</code></dd>
<dt>created</dt><dd>${time(a.created_at_ms)}</dd><dt>expires</dt><dd id="expires">${time(a.expires_at_ms)}${expired ? " (expired)" : ""}${expiringSoon(a, v.nowMs) ? ` <span class="expiring" id="expiring">expires in ${e(remaining(a.expires_at_ms - v.nowMs))}: decide now</span>` : ""}</dd></dl>
<h2>Preview: what you approve</h2><table id="preview"><tbody>${preview}</tbody></table>
${(v.limitLines ?? []).length === 0 ? "" : `<h2>Limits</h2><ul id="limits">${(v.limitLines ?? []).map((l) => `<li>${e(l)}</li>`).join("")}</ul>`}
<h2>All arguments</h2><pre id="args">${jsonHtml(a.args)}</pre>
${v.editDiff === null ? "" : `<h2>Edit</h2>${diffTable(v.editDiff)}`}
${controls}
<h2>Decisions</h2>${a.events.length === 0 ? "<p>None yet.</p>" : `<table id="events"><thead><tr><th>decision</th><th>by</th><th>at</th><th>reason</th></tr></thead><tbody>${events}</tbody></table>`}`,
    v.signOut ? csrf : null,
    signed,
  );
}

export function editReviewPage(who: ApproverContext, a: ApprovalDetail, edited: JsonObject, reason: string, changes: readonly ArgChange[], csrf: string, signOut: boolean, signed = false): string {
  const action = `/approvals/${e(encodeURIComponent(a.id))}`;
  const sign = signed ? ` data-sign="/api/approvals/${e(encodeURIComponent(a.id))}/signing"` : "";
  return layout(
    `Edit ${a.id}`,
    who,
    `<h1>Review the edit of ${e(a.tool)}</h1><p>The edited arguments replace the original call; the new call is approved by you.</p>
${diffTable(changes)}<h2>Edited arguments</h2><pre id="edited">${jsonHtml(edited)}</pre>
<form method="post" action="${action}/decide"${sign}><input type="hidden" name="_csrf" value="${e(csrf)}">${signed ? `<input type="hidden" name="assertion" value="">` : ""}<input type="hidden" name="decision" value="edit">
<input type="hidden" name="edited_args" value="${e(JSON.stringify(edited))}"><input type="hidden" name="reason" value="${e(reason)}">
<button class="approve" id="confirm-edit">Approve the edited call</button> <a href="${action}">Cancel</a></form>${signed ? `<p id="passkey-status"></p>` : ""}`,
    signOut ? csrf : null,
    signed,
  );
}

/** The approver's passkeys and the button that registers one; `creds` null: this inbox keeps no passkeys. */
export function passkeysPage(who: ApproverContext, creds: readonly ApproverCredential[] | null, csrf: string, signOut: boolean): string {
  const rows = (creds ?? []).map((c) => `<tr><td><code>${e(c.credential_id)}</code></td><td>${e(c.rp_id)}</td><td>${time(c.created_at_ms)}</td></tr>`).join("");
  return layout(
    "Passkeys",
    who,
    `<h1>Your passkeys</h1>${
      creds === null
        ? "<p>This inbox keeps no passkeys.</p>"
        : `<p>Decisions on tools whose approvals are signed need one of your passkeys.</p>
${creds.length === 0 ? `<p id="no-passkeys">None registered yet.</p>` : `<table id="passkeys"><thead><tr><th>credential</th><th>relying party</th><th>registered</th></tr></thead><tbody>${rows}</tbody></table>`}
<p><button id="register-passkey" data-csrf="${e(csrf)}">Register a passkey</button> <span id="passkey-status"></span></p>`
    }`,
    signOut ? csrf : null,
    creds !== null,
  );
}

export function loginPage(csrf: string, error: string | null): string {
  return layout(
    "Sign in",
    null,
    `<h1>Sign in</h1>${error === null ? "" : `<div class="flash error" id="error">${e(error)}</div>`}
<p>Paste an approver token (issued with <code>toolgate token</code>).</p>
<form method="post" action="/login"><input type="hidden" name="_csrf" value="${e(csrf)}">
<textarea name="token" id="token" rows="4" aria-label="token"></textarea><p><button id="sign-in">Sign in</button></p></form>`,
  );
}

export function errorPage(who: ApproverContext | null, code: number, message: string): string {
  return layout(`Error ${code}`, who, `<h1>${e(code)}</h1><div class="flash error" id="error">${e(message)}</div><p><a href="/approvals">Back to the inbox</a></p>`);
}
