/**
 * createInboxApp: the approvals HTTP service (Hono). A JSON API under /api and a small
 * server-rendered inbox: /approvals (a tenant's list), /approvals/<id> (detail with the
 * exact preview, all arguments, the policy's reason, requester and expiry; approve,
 * reject, edit with a diff, revoke). Every route needs an approver (`verifyApprover`);
 * an approval of another tenant is 404, as one that does not exist; every state-changing browser request carries a
 * CSRF token.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { InboxApprovals } from "../approvals/approvals-api.js";
import type { ResumeOutcome, RuntimeApprovals } from "../runtime/runtime.js";
import { decideAsApprover, parseDecision } from "../approvals/decide-as.js";
import type { HumanDecision } from "../approvals/decide-as.js";
import { ApprovalsError, isApprovalsError } from "../approvals/errors.js";
import { approvalListStatuses } from "../approvals/list.js";
import type { ApprovalDetail, ListApprovalsRequest } from "../approvals/types.js";
import type { JsonObject } from "../manifest.js";
import type { DecideOutcome } from "../approvals/decide.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { ApprovalStatus, Store } from "../store/store.js";
import { diffArgs } from "./args-diff.js";
import { readCookie, sessionCookie } from "./approver-token.js";
import { decodeFlash, encodeFlash, FLASH_MAX_AGE, flashCookie } from "./flash.js";
import type { VerifyApprover } from "./approver-token.js";
import { crossSite, csrfCookie, csrfField, csrfHeader, csrfToken, csrfTokenValid, newCsrfCookieValue, sameOriginAsserted } from "./csrf.js";
import { effectiveApproval, quorumState } from "../approvals/quorum.js";
import type { QuorumState } from "../approvals/quorum.js";
import { nextStep } from "./next-step.js";
import { passkeyScript } from "./passkey-script.js";
import { acceptSignature, registerPasskey, registrationOptions, relyingParty, signingRequest } from "./passkeys.js";
import type { PasskeyStore, WebAuthnOptions } from "./passkeys.js";
import type { NextStep } from "./next-step.js";
import { detailPage, editReviewPage, errorPage, listPage, loginPage, passkeysPage, toolInfo } from "./pages.js";
import type { ToolCatalog } from "./pages.js";
import { limitLine } from "./limit-line.js";
import { limitsOfCall } from "../runtime/limit-figures.js";
import type { Manifest } from "../manifest.js";

export interface InboxAppOptions {
  /** `runtime.approvals` (can resume) or a standalone `createApprovals(...)` (decides only). */
  readonly approvals: InboxApprovals | RuntimeApprovals;
  readonly verifyApprover: VerifyApprover;
  /** HMAC key of the CSRF tokens (at least 32 bytes). */
  readonly csrfSecret: string;
  /** After an approve or edit, run the call on this host. Default: true when `approvals` can resume. */
  readonly resumeOnDecision?: boolean;
  /** Shows /login, which stores a pasted token in the session cookie the shipped verifier reads. Default true. */
  readonly login?: boolean;
  /** Called after every recorded decision (and the resume, when it ran). Errors are reported, not raised. */
  readonly onDecision?: (approvalId: string, outcome: DecideOutcome, resumed: ResumeOutcome | null) => void | Promise<void>;
  /**
   * The store's operation records, so the inbox can say whether an approved call has run,
   * is running or waits for the host (`store`). Without it, only the approval's own record
   * (consumed or not) tells.
   */
  readonly operations?: Pick<Store, "getOperation">;
  /** Each tool's description and effect class, shown beside its name (e.g. the generated `manifest.tools`). */
  readonly tools?: ToolCatalog;
  /** The manifest's limits and the store: a pending approval shows its limits' figures now ("1500 of 10000 used in the last 24h"). */
  readonly limits?: { readonly manifest: Pick<Manifest, "limits" | "tools">; readonly store: Pick<Store, "readLimitFigures"> };
  /**
   * Approvers' passkeys and decision signatures (`store`): enables /passkeys and the signed
   * decisions a tool with `approval.signed` needs. Without it such tools cannot be decided here.
   */
  readonly passkeys?: PasskeyStore;
  /** The WebAuthn relying party (default: the request's origin and host name). */
  readonly webauthn?: WebAuthnOptions;
  readonly now?: () => number;
  readonly onError?: (err: unknown) => void;
}

/** Enough for any tool's arguments an approver would edit by hand; more is refused before parsing. */
const MAX_BODY_BYTES = 256 * 1024;
const statuses: readonly string[] = approvalListStatuses;
const canResume = (a: InboxApprovals | RuntimeApprovals): a is RuntimeApprovals => typeof (a as Partial<RuntimeApprovals>).resume === "function";
const subject = (who: ApproverContext | null): string => (who === null ? "" : `${who.tenant}\u0000${who.user}`);

const statusOf = (why: string): ContentfulStatusCode =>
  why === "not_found"
    ? 404
    : why === "already_decided" || why === "expired" || why === "already_voted"
      ? 409
      : why === "invalid_edit" || why === "invalid_decision" || why === "invalid_request" || why === "invalid_cursor"
        ? 400
        : 403;

export function createInboxApp(opts: InboxAppOptions): Hono {
  if (new TextEncoder().encode(opts.csrfSecret).length < 32) throw new Error("createInboxApp: csrfSecret must be at least 32 bytes");
  const now = opts.now ?? Date.now;
  const onError = opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate serve: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`));
  const resumeOnDecision = opts.resumeOnDecision ?? canResume(opts.approvals);
  const executesOnApproval = resumeOnDecision && canResume(opts.approvals);
  const tools: ToolCatalog = opts.tools ?? {};
  const signOut = opts.login !== false;
  const app = new Hono();

  /** What happens next to the call: for an edited approval, to the edited call. */
  const stepOf = async (a: ApprovalDetail): Promise<NextStep> => {
    const replacement = a.status === "edited" && a.pending_call?.replaced_by != null ? await opts.approvals.get(a.pending_call.replaced_by) : null;
    const target = replacement ?? a;
    const operation = opts.operations === undefined ? undefined : target.operation_id === null ? null : await opts.operations.getOperation(target.tenant, target.operation_id, now());
    return nextStep({ approval: target, operation, executesOnApproval, nowMs: now(), quorum: quorumFor(target) });
  };

  const secure = (c: Context): boolean => new URL(c.req.url).protocol === "https:";
  /** The browser's CSRF cookie value, set on first sight. */
  const csrfCookieOf = (c: Context): string => {
    const existing = readCookie(c.req.header("cookie") ?? null, csrfCookie);
    if (existing !== null && existing.length >= 20) return existing;
    const fresh = newCsrfCookieValue();
    c.header("set-cookie", `${csrfCookie}=${fresh}; Path=/; HttpOnly; SameSite=Strict${secure(c) ? "; Secure" : ""}`, { append: true });
    return fresh;
  };
  const wantsHtml = (c: Context): boolean => !c.req.path.startsWith("/api/");

  const fail = (c: Context, who: ApproverContext | null, code: ContentfulStatusCode, message: string) =>
    wantsHtml(c) ? c.html(errorPage(who, code, message), code) : c.json({ error: { code, message } }, code);

  const verified = async (request: Request): Promise<ApproverContext | null> => {
    try {
      return await opts.verifyApprover(request);
    } catch (err) {
      onError(err);
      return null;
    }
  };
  const approverOf = (c: Context): Promise<ApproverContext | null> => verified(c.req.raw);

  /** Ambient-credential requests must prove they come from our own pages. */
  const csrfOk = async (c: Context, who: ApproverContext | null, sent: string | null): Promise<boolean> => {
    if (crossSite(c.req.raw)) return false;
    if (who !== null && (await bearerAlone(c, who))) return true;
    return csrfTokenValid(opts.csrfSecret, readCookie(c.req.header("cookie") ?? null, csrfCookie), subject(who), sent);
  };
  /**
   * True when the Authorization header by itself (no cookies) authenticates this same approver:
   * a verified bearer token, which a cross-site form cannot send. `Basic …`, an empty or forged
   * `Bearer` prove nothing, and the session cookie then still needs the CSRF token.
   */
  const bearerAlone = async (c: Context, who: ApproverContext): Promise<boolean> => {
    const authorization = c.req.header("authorization");
    if (authorization === undefined) return false;
    const alone = await verified(new Request(c.req.url, { headers: { authorization } }));
    return alone !== null && alone.tenant === who.tenant && alone.user === who.user;
  };

  const withApprover = (handler: (c: Context, who: ApproverContext) => Promise<Response>) => async (c: Context): Promise<Response> => {
    const who = await approverOf(c);
    if (who === null) {
      if (wantsHtml(c) && c.req.method === "GET" && opts.login !== false) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      return fail(c, null, 401, "not signed in: send Authorization: Bearer <token> (toolgate token) or sign in at /login");
    }
    try {
      return await handler(c, who);
    } catch (err) {
      if (isApprovalsError(err)) return fail(c, who, statusOf(err.code), err.message);
      onError(err);
      return fail(c, who, 500, "internal error (logged by the server)");
    }
  };

  /** The approval, if the approver may see it. */
  const visible = async (c: Context, who: ApproverContext): Promise<ApprovalDetail> => {
    const id = c.req.param("id") ?? "";
    const a = await opts.approvals.get(id);
    // Another tenant's approval is answered exactly as an id that does not exist, so its existence does not leak.
    if (a === null || a.tenant !== who.tenant) throw new ApprovalsError("not_found", `approval ${id} does not exist in tenant ${who.tenant}`);
    return a;
  };

  const quorumFor = (a: ApprovalDetail): QuorumState | null => {
    const spec = effectiveApproval(toolInfo(tools, a.tool)?.approval ?? null, a.requirement).quorum;
    return spec === null ? null : quorumState(spec, a, a.votes);
  };
  const signedFor = (a: ApprovalDetail): boolean => effectiveApproval(toolInfo(tools, a.tool)?.approval ?? null, a.requirement).signed;
  const needsSignature = (a: ApprovalDetail, req: HumanDecision): boolean => signedFor(a) && req.decision !== "revoke";
  const passkeyStore = (tool: string): PasskeyStore => {
    if (opts.passkeys === undefined) throw new ApprovalsError("forbidden", `${tool} needs a passkey-signed decision and this inbox has no passkey store (createInboxApp({ passkeys }))`);
    return opts.passkeys;
  };

  const decideAndResume = async (a: ApprovalDetail, req: HumanDecision, who: ApproverContext, assertion: unknown) => {
    const id = a.id;
    const signature = needsSignature(a, req) ? await acceptSignature(passkeyStore(a.tool), a, req.decision, who, req.edited_args ?? null, assertion, now()) : null;
    const outcome = await decideAsApprover(opts.approvals, id, req, who);
    // The edited call's approval is released by the same signed edit.
    if (outcome.ok && signature !== null && outcome.edited !== undefined) {
      await passkeyStore(a.tool).saveDecisionSignature({
        approval_id: outcome.edited.approval.id,
        tenant: a.tenant,
        decision: "edit",
        approver: who.user,
        credential_id: String(signature.assertion.id),
        record: signature.record as unknown as JsonObject,
        assertion: signature.assertion,
        signed_at_ms: now(),
      });
    }
    let resumed: ResumeOutcome | null = null;
    const released = outcome.ok && (outcome.quorum === undefined || outcome.quorum.complete);
    if (released && resumeOnDecision && canResume(opts.approvals) && (req.decision === "approve" || req.decision === "edit")) {
      resumed = await opts.approvals.resume(id);
    }
    if (outcome.ok && opts.onDecision !== undefined) {
      try {
        await opts.onDecision(id, outcome, resumed);
      } catch (err) {
        onError(err);
      }
    }
    return { outcome, resumed };
  };

  const listRequest = (c: Context, who: ApproverContext, defaultStatus: string | undefined): ListApprovalsRequest => {
    const q = (k: string): string | undefined => c.req.query(k) || undefined;
    const status = q("status") ?? defaultStatus;
    if (status !== undefined && status !== "all" && !statuses.includes(status)) {
      throw new ApprovalsError("invalid_request", `status: must be one of ${statuses.join(", ")} or all`);
    }
    const limit = q("limit");
    const older = q("older_than");
    if (limit !== undefined && !/^\d{1,4}$/.test(limit)) throw new ApprovalsError("invalid_request", "limit: must be a whole number from 1 to 200");
    const olderMs = older === undefined ? undefined : /^\d+$/.test(older) ? Number(older) : Date.parse(older);
    if (olderMs !== undefined && !Number.isFinite(olderMs)) throw new ApprovalsError("invalid_request", "older_than: must be epoch milliseconds or an ISO 8601 time");
    return {
      tenant: who.tenant,
      ...(status === undefined || status === "all" ? {} : { status: status as ApprovalStatus }),
      ...(q("tool") === undefined ? {} : { tool: q("tool")! }),
      ...(q("requested_by") === undefined ? {} : { requested_by: q("requested_by")! }),
      ...(olderMs === undefined ? {} : { older_than: olderMs }),
      ...(limit === undefined ? {} : { limit: Number(limit) }),
      ...(q("cursor") === undefined ? {} : { cursor: q("cursor")! }),
    };
  };

  // Pages are never framed (a framed Approve button could be clickjacked), load nothing from elsewhere, leak no referrer to other sites.
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    c.res.headers.set("x-frame-options", "DENY");
    c.res.headers.set("x-content-type-options", "nosniff");
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on our own form posts.
    c.res.headers.set("referrer-policy", "same-origin");
    c.res.headers.set("cache-control", "no-store");
  });
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => (wantsHtml(c) ? c.html(errorPage(null, 413, `request body over ${MAX_BODY_BYTES} bytes`), 413) : c.json({ error: { code: 413, message: `request body over ${MAX_BODY_BYTES} bytes` } }, 413)),
    }),
  );

  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/", (c) => c.redirect("/approvals", 303));

  // ------------------------------------------------------------ sign in (session cookie)
  if (opts.login !== false) {
    app.get("/login", (c) => c.html(loginPage(csrfToken(opts.csrfSecret, csrfCookieOf(c), ""), null)));
    app.post("/login", async (c) => {
      const form = await c.req.parseBody();
      const token = typeof form["token"] === "string" ? form["token"].trim() : "";
      const sent = typeof form[csrfField] === "string" ? form[csrfField] : null;
      // Login CSRF: the token is bound to no approver yet, so a planted CSRF cookie would pass; the browser must vouch for the origin.
      if (!sameOriginAsserted(c.req.raw)) {
        return c.html(errorPage(null, 403, "sign-in needs a browser that marks the form as same-origin (Sec-Fetch-Site or Origin header); scripts send Authorization: Bearer instead"), 403);
      }
      if (!(await csrfOk(c, null, sent))) return c.html(errorPage(null, 403, "the form expired or came from another site: reload the page and try again"), 403);
      const who = await opts.verifyApprover(new Request(c.req.url, { headers: { authorization: `Bearer ${token}` } })).catch(() => null);
      if (who === null) return c.html(loginPage(csrfToken(opts.csrfSecret, csrfCookieOf(c), ""), "that token is not valid (wrong secret, malformed, expired, or living longer than the maximum token lifetime): issue a new one with toolgate token"), 401);
      c.header("set-cookie", `${sessionCookie}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict${secure(c) ? "; Secure" : ""}`, { append: true });
      return c.redirect("/approvals", 303);
    });
    app.post(
      "/logout",
      withApprover(async (c, who) => {
        const form = await c.req.parseBody();
        if (!(await csrfOk(c, who, typeof form[csrfField] === "string" ? form[csrfField] : null))) return fail(c, who, 403, "missing or invalid CSRF token");
        c.header("set-cookie", `${sessionCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`, { append: true });
        return c.redirect("/login", 303);
      }),
    );
  }

  // ------------------------------------------------------------ pages
  app.get(
    "/approvals",
    withApprover(async (c, who) => {
      const req = listRequest(c, who, "pending");
      const page = await opts.approvals.list(req);
      const filter = c.req.query("status") || "pending";
      const next = page.next_cursor === null ? null : `/approvals?status=${encodeURIComponent(filter)}&cursor=${encodeURIComponent(page.next_cursor)}`;
      return c.html(listPage({ who, page, filter, nowMs: now(), nextHref: next, tools, csrf: signOut ? csrfToken(opts.csrfSecret, csrfCookieOf(c), subject(who)) : null }));
    }),
  );

  const flashes: Readonly<Record<string, string>> = {
    approve: "Approved.",
    reject: "Rejected.",
    edit: "Edited: the edited call is approved.",
    revoke: "Revoked.",
  };

  /** The figures of the pending call's limits now; a store error shows none (the page still renders). */
  const limitLinesOf = async (a: ApprovalDetail): Promise<string[]> => {
    const l = opts.limits;
    const tool = l === undefined || !Object.hasOwn(l.manifest.tools, a.tool) ? undefined : l.manifest.tools[a.tool];
    if (l === undefined || tool === undefined) return [];
    const limits = limitsOfCall(l.manifest, tool, a.args);
    if (limits.length === 0) return [];
    try {
      const figures = await l.store.readLimitFigures({ tenant: a.tenant, operation_id: a.operation_id, now_ms: now(), keys: limits });
      return limits.map((x) => limitLine(x, figures[x.name] ?? { count: 0, sum: 0 }));
    } catch (err) {
      onError(err);
      return [];
    }
  };

  const renderDetail = async (c: Context, who: ApproverContext, a: ApprovalDetail, flash: string | null, error: string | null, code: ContentfulStatusCode = 200, warnings: readonly string[] = []) => {
    const editEvent = a.events.find((ev) => ev.decision === "edit" && ev.edited_args !== null);
    const editDiff = editEvent?.edited_args == null ? null : diffArgs(a.args, editEvent.edited_args);
    const next = await stepOf(a);
    const limitLines = a.status === "pending" ? await limitLinesOf(a) : [];
    return c.html(detailPage({ limitLines, who, a, csrf: csrfToken(opts.csrfSecret, csrfCookieOf(c), subject(who)), nowMs: now(), flash, error, editDiff, warnings, next, tool: toolInfo(tools, a.tool), signOut, signed: signedFor(a), quorum: quorumFor(a) }), code);
  };

  // A decision's warnings ride the redirect to the approval's page in a signed, page-scoped cookie read once.
  const flashPath = (id: string): string => `/approvals/${encodeURIComponent(id)}`;
  const setFlash = (c: Context, who: ApproverContext, id: string, warnings: readonly string[]): void => {
    if (warnings.length === 0) return;
    const value = encodeFlash(opts.csrfSecret, id, subject(who), warnings);
    c.header("set-cookie", `${flashCookie}=${value}; Path=${flashPath(id)}; Max-Age=${FLASH_MAX_AGE}; HttpOnly; SameSite=Strict${secure(c) ? "; Secure" : ""}`, { append: true });
  };
  const takeFlash = (c: Context, who: ApproverContext, id: string): string[] => {
    const value = readCookie(c.req.header("cookie") ?? null, flashCookie);
    if (value === null) return [];
    c.header("set-cookie", `${flashCookie}=; Path=${flashPath(id)}; Max-Age=0; HttpOnly; SameSite=Strict`, { append: true });
    return decodeFlash(opts.csrfSecret, id, subject(who), value) ?? [];
  };

  app.get(
    "/approvals/:id",
    withApprover(async (c, who) => {
      const a = await visible(c, who);
      const done = c.req.query("done");
      const ran = c.req.query("resumed");
      const flash = done !== undefined && flashes[done] !== undefined ? `${flashes[done]}${ran === "success" ? " The host ran the call." : ran !== undefined && /^[a-z_]{1,40}$/.test(ran) ? ` The host's run answered ${ran}.` : ""}` : null;
      return renderDetail(c, who, a, flash, null, 200, takeFlash(c, who, a.id));
    }),
  );

  app.post(
    "/approvals/:id/edit",
    withApprover(async (c, who) => {
      const form = await c.req.parseBody();
      if (!(await csrfOk(c, who, typeof form[csrfField] === "string" ? form[csrfField] : null))) return fail(c, who, 403, "missing or invalid CSRF token: reload the page and try again");
      const a = await visible(c, who);
      const text = typeof form["edited_args"] === "string" ? form["edited_args"] : "";
      let edited: unknown;
      try {
        edited = JSON.parse(text);
      } catch (err) {
        return renderDetail(c, who, a, null, `edited arguments are not JSON: ${err instanceof Error ? err.message : String(err)}`, 400);
      }
      if (typeof edited !== "object" || edited === null || Array.isArray(edited)) return renderDetail(c, who, a, null, "edited arguments must be a JSON object", 400);
      const reason = typeof form["reason"] === "string" ? form["reason"].slice(0, 2_000) : "";
      const changes = diffArgs(a.args, edited as JsonObject);
      return c.html(editReviewPage(who, a, edited as JsonObject, reason, changes, csrfToken(opts.csrfSecret, csrfCookieOf(c), subject(who)), signOut, signedFor(a)));
    }),
  );

  app.post(
    "/approvals/:id/decide",
    withApprover(async (c, who) => {
      const form = await c.req.parseBody();
      if (!(await csrfOk(c, who, typeof form[csrfField] === "string" ? form[csrfField] : null))) return fail(c, who, 403, "missing or invalid CSRF token: reload the page and try again");
      const a = await visible(c, who);
      let editedArgs: unknown;
      if (typeof form["edited_args"] === "string" && form["edited_args"] !== "") {
        try {
          editedArgs = JSON.parse(form["edited_args"]);
        } catch {
          return renderDetail(c, who, a, null, "edited arguments are not JSON", 400);
        }
      }
      const req = parseDecision({ decision: form["decision"], reason: form["reason"], edited_args: editedArgs });
      const { outcome, resumed } = await decideAndResume(a, req, who, form["assertion"]);
      if (!outcome.ok) return renderDetail(c, who, await visible(c, who), null, outcome.message, statusOf(outcome.why));
      const ran = resumed === null ? "" : `&resumed=${resumed.ok ? (resumed.envelope.outcome === "success" ? "success" : resumed.envelope.reason) : resumed.why}`;
      setFlash(c, who, a.id, outcome.warnings);
      return c.redirect(`/approvals/${encodeURIComponent(a.id)}?done=${req.decision}${ran}`, 303);
    }),
  );

  // ------------------------------------------------------------ passkeys
  app.get("/assets/passkeys.js", (c) => c.body(passkeyScript, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get(
    "/passkeys",
    withApprover(async (c, who) => {
      const creds = opts.passkeys === undefined ? null : await opts.passkeys.listApproverCredentials(who.tenant, who.user);
      return c.html(passkeysPage(who, creds, csrfToken(opts.csrfSecret, csrfCookieOf(c), subject(who)), signOut));
    }),
  );
  app.post(
    "/api/passkeys/options",
    withApprover(async (c, who) => {
      if (!(await csrfOk(c, who, c.req.header(csrfHeader) ?? null))) return fail(c, who, 403, `missing or invalid CSRF token: send the ${csrfHeader} header`);
      return c.json(await registrationOptions(passkeyStore("a passkey"), relyingParty(opts.webauthn, c.req.url), who, opts.csrfSecret, now()));
    }),
  );
  app.post(
    "/api/passkeys",
    withApprover(async (c, who) => {
      if (!(await csrfOk(c, who, c.req.header(csrfHeader) ?? null))) return fail(c, who, 403, `missing or invalid CSRF token: send the ${csrfHeader} header`);
      const body: unknown = await c.req.json().catch(() => null);
      const cred = await registerPasskey(passkeyStore("a passkey"), relyingParty(opts.webauthn, c.req.url), who, opts.csrfSecret, body, now());
      return c.json({ ok: true, credential_id: cred.credential_id });
    }),
  );
  app.post(
    "/api/approvals/:id/signing",
    withApprover(async (c, who) => {
      const a = await visible(c, who);
      const body: unknown = await c.req.json().catch(() => null);
      const req = parseDecision(body);
      return c.json(await signingRequest(passkeyStore(a.tool), relyingParty(opts.webauthn, c.req.url), a, req.decision, who, req.edited_args ?? null));
    }),
  );

  // ------------------------------------------------------------ JSON API
  app.get("/api/csrf", withApprover(async (c, who) => c.json({ csrf_token: csrfToken(opts.csrfSecret, csrfCookieOf(c), subject(who)), header: csrfHeader })));
  app.get("/api/approvals", withApprover(async (c, who) => c.json(await opts.approvals.list(listRequest(c, who, undefined)))));
  app.get(
    "/api/approvals/:id",
    withApprover(async (c, who) => {
      const a = await visible(c, who);
      return c.json({ ...a, tool_info: toolInfo(tools, a.tool) ?? null, next_step: await stepOf(a) });
    }),
  );
  app.post(
    "/api/approvals/:id/decision",
    withApprover(async (c, who) => {
      if (!(await csrfOk(c, who, c.req.header(csrfHeader) ?? null))) return fail(c, who, 403, `missing or invalid CSRF token: send the ${csrfHeader} header from GET /api/csrf, or authenticate with Authorization: Bearer`);
      const a = await visible(c, who);
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw new ApprovalsError("invalid_request", "body: must be JSON {decision, reason?, edited_args?}");
      }
      const assertion = typeof body === "object" && body !== null ? (body as { assertion?: unknown }).assertion : undefined;
      const { outcome, resumed } = await decideAndResume(a, parseDecision(body), who, assertion);
      if (!outcome.ok) return c.json({ error: { code: outcome.why, message: outcome.message } }, statusOf(outcome.why));
      const after = await opts.approvals.get(a.id);
      return c.json({ ...outcome, resumed, next_step: after === null ? null : await stepOf(after) });
    }),
  );

  app.notFound((c) => (wantsHtml(c) ? c.html(errorPage(null, 404, "no such page"), 404) : c.json({ error: { code: 404, message: "no such route" } }, 404)));
  app.onError((err, c) => {
    onError(err);
    return wantsHtml(c) ? c.html(errorPage(null, 500, "internal error (logged by the server)"), 500) : c.json({ error: { code: 500, message: "internal error" } }, 500);
  });
  return app;
}
