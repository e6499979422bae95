/**
 * Signed webhooks announcing new pending approvals. The body is JSON; the header
 * `X-Toolgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
 * lets the receiver check origin and freshness (`verifyWebhookSignature`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { approvalPageUrl } from "../approvals/link.js";
import type { OnPendingApproval } from "../approvals/pending.js";
import type { ApprovalRecord, ApprovalStore, InboxStore, PendingCall } from "../store/store.js";

export const signatureHeader = "x-toolgate-signature";

export interface PendingApprovalWebhookBody {
  readonly type: "approval.pending";
  readonly approval_id: string;
  readonly tenant: string;
  readonly tool: string;
  readonly preview: ApprovalRecord["preview"];
  readonly requested_by: string;
  readonly run_id: string;
  readonly policy_reason: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  /** The approval's page in the inbox. */
  readonly url: string;
}

export function signWebhook(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const mac = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${mac}`;
}

/** For receivers: true when the signature matches and is at most `toleranceSeconds` old. */
export function verifyWebhookSignature(secret: string, body: string, header: string | null, nowMs = Date.now(), toleranceSeconds = 300): boolean {
  if (header === null) return false;
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts["t"]);
  const v1 = parts["v1"];
  if (!Number.isSafeInteger(t) || v1 === undefined || Math.abs(nowMs / 1000 - t) > toleranceSeconds) return false;
  const want = Buffer.from(createHmac("sha256", secret).update(`${t}.${body}`).digest("hex"));
  const got = Buffer.from(v1);
  return want.length === got.length && timingSafeEqual(want, got);
}

export interface WebhookOptions {
  readonly url: string;
  readonly secret: string;
  /** Base URL of `toolgate serve`, for the link to the approval's page. */
  readonly baseUrl: string;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  readonly timeoutMs?: number;
}

export function webhookBody(approval: ApprovalRecord, call: PendingCall, baseUrl: string): PendingApprovalWebhookBody {
  return {
    type: "approval.pending",
    approval_id: approval.id,
    tenant: approval.tenant,
    tool: approval.tool,
    preview: approval.preview,
    requested_by: approval.requested_by,
    run_id: approval.run_id,
    policy_reason: call.policy_reason,
    created_at: new Date(approval.created_at_ms).toISOString(),
    expires_at: new Date(approval.expires_at_ms).toISOString(),
    url: approvalPageUrl(baseUrl, approval.id),
  };
}

/** A delivery that did not reach a 2xx answer at the configured URL. */
export class WebhookDeliveryError extends Error {
  override name = "WebhookDeliveryError";
}

export const isWebhookDeliveryError = (e: unknown): e is WebhookDeliveryError => e instanceof Error && e.name === "WebhookDeliveryError";

/**
 * Posts one announcement; throws WebhookDeliveryError when the receiver does not answer 2xx.
 * Redirects are never followed: following one would re-post the signed body and its signature
 * to a URL nobody configured, so a 3xx is a failed delivery.
 */
export async function postWebhook(opts: WebhookOptions, approval: ApprovalRecord, call: PendingCall): Promise<void> {
  const body = JSON.stringify(webhookBody(approval, call, opts.baseUrl));
  const res = await (opts.fetch ?? fetch)(opts.url, {
    method: "POST",
    headers: { "content-type": "application/json", [signatureHeader]: signWebhook(opts.secret, body, (opts.now ?? Date.now)()) },
    body,
    redirect: "manual",
    signal: AbortSignal.timeout(opts.timeoutMs ?? 5_000),
  });
  await res.body?.cancel().catch(() => undefined);
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get("location");
    throw new WebhookDeliveryError(
      `webhook ${opts.url} answered ${res.status} redirect${location === null ? "" : ` to ${location.slice(0, 500)}`}: not followed (the signed body would go to another URL); not delivered, set the webhook URL to the final address`,
    );
  }
  if (!res.ok) throw new WebhookDeliveryError(`webhook ${opts.url} answered ${res.status}: not delivered`);
}

/** `onPendingApproval` for createRuntime: announces each new pending approval from the process that created it. */
export function pendingApprovalWebhook(opts: WebhookOptions): OnPendingApproval {
  return (approval, call) => postWebhook(opts, approval, call);
}

export interface Announcer {
  /** Runs one round now (what the timer does); resolves with the number announced. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * For `toolgate serve --webhook`: polls the store for pending approvals nobody announced
 * yet (whichever process created them), claims and posts them; a failed post is
 * unmarked and retried on a later round.
 */
export function startAnnouncer(opts: WebhookOptions & { readonly store: InboxStore & Pick<ApprovalStore, "getApproval">; readonly intervalMs?: number; readonly onError?: (err: unknown) => void }): Announcer {
  const now = opts.now ?? Date.now;
  let running: Promise<number> = Promise.resolve(0);
  const round = async (): Promise<number> => {
    const calls = await opts.store.claimAnnouncements(now(), 50);
    let sent = 0;
    for (const call of calls) {
      const approval = await opts.store.getApproval(call.approval_id);
      if (approval === null) continue;
      try {
        await postWebhook(opts, approval, call);
        sent += 1;
      } catch (err) {
        await opts.store.unmarkAnnouncement(call.approval_id);
        opts.onError?.(err);
      }
    }
    return sent;
  };
  const tick = (): Promise<number> => (running = running.then(round, round));
  const timer = setInterval(() => void tick().catch((err: unknown) => opts.onError?.(err)), opts.intervalMs ?? 1_000);
  timer.unref();
  return {
    tick,
    async stop() {
      clearInterval(timer);
      await running.catch(() => 0);
    },
  };
}
