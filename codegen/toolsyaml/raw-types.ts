import type { Effect, JsonValue } from "../../src/manifest.js";

/** tools.yaml as written, after it passed tools-yaml.schema.json. */
export interface RawToolsFile {
  readonly version: 1;
  readonly policy?: { readonly entrypoint: string; readonly rego_version?: "v0" | "v1" | "v2"; readonly builtins?: string; readonly strict_builtin_errors?: boolean };
  /** Thrown errors of every tool, by `code` or `name`. */
  readonly errors?: Readonly<Record<string, RawFailure>>;
  readonly approvals?: { readonly default_approver_roles?: readonly string[]; readonly identity_case?: "sensitive" | "insensitive" };
  readonly tools: Readonly<Record<string, RawTool>>;
}

/** A spend or rate limit as written under a tool's `limits:`. */
export interface RawLimit {
  readonly per?: readonly string[];
  readonly window: string;
  readonly sum?: string;
  readonly max_sum?: number;
  readonly max_count?: number;
  readonly tools?: readonly string[];
}

export type RawFailure = "permanent" | "retryable" | { readonly class: "permanent" | "retryable"; readonly retry_after_ms?: number };

export type JsonSchemaObject = { readonly [key: string]: JsonValue };

export interface RawTool {
  readonly description: string;
  readonly effect: Effect;
  readonly input: JsonSchemaObject;
  readonly output: JsonSchemaObject;
  readonly failures?: Readonly<Record<string, RawFailure>>;
  /** Thrown errors of this tool, by `code` or `name` (over the file's `errors`). */
  readonly errors?: Readonly<Record<string, RawFailure>>;
  readonly idempotency?: { readonly fingerprint: readonly string[]; readonly retention?: string; readonly key?: readonly string[] };
  readonly limits?: Readonly<Record<string, RawLimit>>;
  readonly run_history?: boolean;
  readonly approval?: {
    readonly preview?: readonly string[];
    readonly ttl?: string;
    readonly self_approve?: boolean;
    readonly approver_roles?: readonly string[];
    readonly binding?: "principal" | "tenant";
    readonly signed?: boolean;
    readonly quorum?: number;
    readonly quorum_roles?: readonly string[];
  };
  readonly compensation?: string;
  /** Arguments of the compensating call: "$resource_id", "$args.<field>", "$observed.<field>" or a literal. */
  readonly compensation_args?: Readonly<Record<string, JsonValue>>;
  /** Host facts resolved right before every decision: fact name -> JSON Schema of its value. */
  readonly context?: Readonly<Record<string, JsonSchemaObject>>;
  readonly sensitive?: readonly string[];
  readonly postcondition?: "resource_id" | { readonly resource_id?: boolean; readonly observed?: Readonly<Record<string, JsonValue>> };
  readonly timeout_ms?: number;
  readonly max_args_bytes?: number;
  readonly retry?: {
    readonly max_attempts: number;
    readonly backoff?: { readonly initial?: string; readonly multiplier?: number; readonly max?: string };
  };
}
