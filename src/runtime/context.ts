/**
 * Host facts for a decision (tools.yaml `context:`): each declared fact's resolver runs right
 * before every authorization of the tool, so the policy judges commit-time state (also on the
 * approved retry), and its value must pass the fact's generated schema validator. A missing
 * resolver or validator, a throw, a timeout or an invalid value fails the call closed:
 * retryable_failure with reason context_unavailable.
 * Enters: a PreparedCall. Leaves: the facts as a JSON object, or that envelope.
 */
import type { ContextRequest, StandaloneValidator } from "../generated-runtime.js";
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import { retryable } from "./envelope.js";
import type { RetryableFailureEnvelope } from "./envelope.js";
import { formatProblems } from "../call-data/problems.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

/** Inside the runtime: any fact resolver, taking the validated arguments as JSON. */
export type LooseContextResolver = (req: ContextRequest<JsonObject>) => Promise<unknown>;
export type LooseContextResolvers = Readonly<Record<string, Readonly<Record<string, LooseContextResolver | undefined>> | undefined>>;

/** How long a resolver may take before the decision fails closed. */
export const contextTimeoutMs = 2_000;
/** Retry hint of context_unavailable. */
export const contextRetryAfterMs = 1_000;

export const declaredFacts = (tool: ToolManifestEntry): readonly string[] => tool.context ?? [];

/** What createRuntime reports missing: a resolver and a validator for every declared fact. */
export function missingContext(
  tools: Readonly<Record<string, ToolManifestEntry>>,
  resolvers: LooseContextResolvers,
  validators: { readonly [tool: string]: { readonly context?: Readonly<Record<string, StandaloneValidator>> } },
): string[] {
  const out: string[] = [];
  for (const tool of Object.values(tools)) {
    for (const fact of declaredFacts(tool)) {
      if (typeof resolvers[tool.name]?.[fact] !== "function") out.push(`context resolver ${tool.name}.${fact}`);
      if (typeof validators[tool.name]?.context?.[fact] !== "function") out.push(`context validator ${tool.name}.${fact}`);
    }
  }
  return out;
}

const jsonCopy = (v: unknown): JsonValue | undefined => {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
};

class ContextTimeout extends Error {
  override name = "ContextTimeout";
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ContextTimeout(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export type ContextResult = { readonly ok: true; readonly context: JsonObject } | { readonly ok: false; readonly envelope: RetryableFailureEnvelope; readonly fact: string };

export async function resolveContext(deps: RuntimeDeps, call: PreparedCall): Promise<ContextResult> {
  const facts = declaredFacts(call.tool);
  const context: JsonObject = {};
  if (facts.length === 0) return { ok: true, context };
  const unavailable = (fact: string, why: string): ContextResult => ({
    ok: false,
    fact,
    envelope: retryable("context_unavailable", `${call.tool.name} was not authorised: context fact ${fact} is unavailable (${why}); nothing ran, try again later`, contextRetryAfterMs, call.operation_id === null ? {} : { operation_id: call.operation_id }),
  });
  const { ctx } = call;
  const req: ContextRequest<JsonObject> = {
    tenant: ctx.tenant,
    user: ctx.user,
    roles: ctx.roles,
    run_id: ctx.run_id,
    tool: call.tool.name,
    args: call.args,
    operation_id: call.operation_id,
  };
  // Independent facts resolve concurrently; each answer is checked on its own.
  const answers = await Promise.all(
    facts.map(async (fact) => {
      const resolve = deps.contextResolvers?.[call.tool.name]?.[fact];
      if (resolve === undefined) return { fact, error: "no resolver registered" };
      try {
        return { fact, value: await withTimeout(Promise.resolve().then(() => resolve(req)), contextTimeoutMs) };
      } catch (err) {
        // The resolver's error may be a database driver's: it goes to the host, not into the model's answer.
        deps.onError(err);
        return { fact, error: err instanceof ContextTimeout ? err.message : "its resolver failed; the error was reported to the host" };
      }
    }),
  );
  for (const a of answers) {
    if ("error" in a) return unavailable(a.fact, a.error ?? "");
    const value = jsonCopy(a.value);
    const validate = deps.validators[call.tool.name]?.context?.[a.fact];
    if (validate === undefined) return unavailable(a.fact, "no schema validator");
    if (value === undefined || !validate(value)) {
      return unavailable(a.fact, `value does not match its schema: ${value === undefined ? "not JSON" : formatProblems(validate.errors).join("; ")}`.slice(0, 300));
    }
    context[a.fact] = value;
  }
  return { ok: true, context };
}
