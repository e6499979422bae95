/**
 * The tool manifest: the normalised, runtime-facing form of tools.yaml.
 * `toolgate codegen` writes it to generated/manifest.ts; the runtime and the
 * policy input read it. Durations are milliseconds.
 */

export type Effect = "read" | "reversible_write" | "external_write" | "destructive";

export const effects: readonly Effect[] = ["read", "reversible_write", "external_write", "destructive"];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** How a typed domain failure is classified in the envelope. */
export type FailureSpec =
  | { readonly class: "permanent" }
  | { readonly class: "retryable"; readonly retry_after_ms: number };

export interface RetrySpec {
  /** Total attempts including the first; 1 means no retry. */
  readonly max_attempts: number;
  readonly backoff: {
    readonly initial_ms: number;
    readonly multiplier: number;
    readonly max_ms: number;
  };
}

export interface ApprovalSpec {
  /** Argument fields shown to the approver first (the approval binds the complete arguments). */
  readonly preview: readonly string[];
  readonly ttl_ms: number;
  /** May the user who requested the call approve it too? Default false (separation of duties). */
  readonly self_approve: boolean;
  /** When non-empty, only approvers holding one of these roles may decide (else the manifest's `approvals.default_approver_roles`). */
  readonly approver_roles: readonly string[];
  /** Approve, edit and reject must carry the approver's passkey signature over the decision record. */
  readonly signed?: boolean;
  /** Distinct approvers needed before the call runs (default 1). */
  readonly quorum?: number;
  /** Roles the quorum must cover: each held by a different approver in it. */
  readonly quorum_roles?: readonly string[];
  /**
   * Who may use the approval once approved: `principal` (absent: the default) only the call of the
   * tenant, user and run that requested it; `tenant` any principal of the tenant (a team queue).
   */
  readonly binding?: ApprovalBinding;
}

/** tools.yaml `approval.binding`: to whom an approval is bound. */
export type ApprovalBinding = "principal" | "tenant";

/** Top-level tools.yaml `approvals:`, settings of every tool's approvals. */
export interface ApprovalsSettings {
  /** Roles an approver needs for a tool that declares no `approver_roles`; empty: such tools cannot be decided. */
  readonly default_approver_roles: readonly string[];
  /** Whether the identity provider treats user ids case-insensitively (self-approval then compares case-folded ids). */
  readonly identity_case: "sensitive" | "insensitive";
}

/** What a successful handler result must satisfy, or the call is a silent failure. */
export interface PostconditionSpec {
  /** Success must name the resource it created or changed. */
  readonly resource_id: boolean;
  /** observed_state fields that must equal an argument (`{ arg }`) or a literal (`{ equals }`). */
  readonly observed: Readonly<Record<string, { readonly arg: string } | { readonly equals: JsonValue }>>;
}

/** One argument of a compensating call: the landed resource's id, an argument or observed field of the original call, or a literal. */
export type CompensationArg =
  | { readonly from: "resource_id" }
  | { readonly arg: string }
  | { readonly observed: string }
  | { readonly equals: JsonValue };

/**
 * A spend or rate limit (tools.yaml `limits:`): per key (tenant + `per` fields), the count and the
 * sum of `sum` over the sliding window of calls that succeeded or are claimed and in flight.
 */
export interface LimitSpec {
  readonly name: string;
  /** Argument fields forming the key, with the tenant; empty: one key per tenant. */
  readonly per: readonly string[];
  readonly window_ms: number;
  /** The numeric argument summed, or null (count only). */
  readonly sum: string | null;
  /** Caps the runtime enforces when the call is claimed (null: none; the policy may still decide on the figures). */
  readonly max_sum: number | null;
  readonly max_count: number | null;
  /** The tools whose calls share the limit, sorted. */
  readonly tools: readonly string[];
}

export interface ToolManifestEntry {
  readonly name: string;
  readonly description: string;
  readonly effect: Effect;
  /** JSON Schema 2020-12 of the arguments, as written in tools.yaml (what MCP servers and adapters advertise). */
  readonly input_schema: JsonObject;
  /** JSON Schema 2020-12 of the handler's success value. */
  readonly output_schema: JsonObject;
  /** Argument fields whose canonical JSON (with tenant and tool) is the idempotency fingerprint. */
  readonly fingerprint: readonly string[];
  /** How long idempotency records are kept. */
  readonly retention_ms: number;
  readonly approval: ApprovalSpec | null;
  /** Name of the reversible tool that undoes this one. */
  readonly compensation: string | null;
  /** How to build the compensating call's arguments from what landed (tools.yaml `compensation_args:`). */
  readonly compensation_args?: Readonly<Record<string, CompensationArg>>;
  readonly postcondition: PostconditionSpec | null;
  readonly timeout_ms: number;
  /** Cap on the call's arguments in bytes of canonical JSON; absent: the runtime's default (64 KiB). */
  readonly max_args_bytes?: number;
  readonly retry: RetrySpec;
  readonly failures: Readonly<Record<string, FailureSpec>>;
  /**
   * Thrown errors by their `code` or `name` (tools.yaml `errors:` of the tool over the file's),
   * checked along the `cause` chain, `code` first; absent when none is declared.
   */
  readonly errors?: Readonly<Record<string, FailureSpec>>;
  /** Argument fields erased from the decision log's copy of the policy input (secrets, personal data). */
  readonly sensitive?: readonly string[];
  /**
   * Names of the host facts this tool's decisions read (tools.yaml `context:`), resolved by the
   * host's resolvers right before every authorization; each is validated against its schema.
   */
  readonly context?: readonly string[];
  /**
   * Natural idempotency key (tools.yaml `idempotency.key`): calls with the same values of these
   * arguments (with tenant and tool) inside retention are one operation, whatever operation_id they send.
   */
  readonly idempotency_key?: readonly string[];
  /** Names of the limits (Manifest.limits) this tool's calls count against, sorted. */
  readonly limits?: readonly string[];
  /** The policy sees input.run, the run's earlier calls (tools.yaml `run_history: true`). */
  readonly run_history?: true;
}

export interface Manifest {
  readonly version: 1;
  /**
   * `strict_builtin_errors`: a builtin error anywhere in a decision's evaluation denies the
   * call (`policy_evaluation_error`) instead of being undefined as in OPA; absent is off.
   */
  readonly policy: { readonly entrypoint: string; readonly strict_builtin_errors?: boolean };
  /** Absent: no default approver roles, so tools without `approver_roles` cannot be decided. */
  readonly approvals?: ApprovalsSettings;
  readonly tools: Readonly<Record<string, ToolManifestEntry>>;
  /** Spend and rate limits by name; absent when none is declared. */
  readonly limits?: Readonly<Record<string, LimitSpec>>;
}
