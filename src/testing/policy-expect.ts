/**
 * Decision tests in TypeScript: compile a policy folder once, then check decisions
 * with vitest matchers.
 *
 *   import { expect } from "vitest";
 *   import { loadPolicyForTest, policyMatchers } from "toolgate/testing";
 *   import "toolgate/vitest"; // the matchers' types on vitest's `expect`
 *   expect.extend(policyMatchers);
 *   const { decide } = await loadPolicyForTest("policies");
 *   expect(decide(input)).toRequireApproval();
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import type { CustomBuiltins } from "../policy/builtins/index.js";
import { toDecision, deny } from "../policy/engine.js";
import { createHostBuiltins } from "../policy/host-builtins/index.js";
import type { PolicyDecision, PolicyInput } from "../policy/engine.js";

export interface PolicyUnderTest {
  /** Evaluates the decision entrypoint; errors and malformed results are denies, as at run time. */
  decide(input: PolicyInput | Readonly<Record<string, unknown>>): PolicyDecision;
  readonly entrypoint: string;
}

export interface LoadPolicyOptions {
  /** Rule path with slashes (default `toolgate/authz/decision`). */
  readonly entrypoint?: string;
  /** Data document (default: `<dir>/data.json` when it exists). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** Run the wasm optimiser (default false: it costs seconds and decisions do not change). */
  readonly optimize?: boolean;
  /** Custom builtins the policy calls (`defineBuiltins`, as tools.yaml `policy.builtins`). */
  readonly builtins?: CustomBuiltins;
}

export class PolicyTestLoadError extends Error {
  override name = "PolicyTestLoadError";
}
export const isPolicyTestLoadError = (e: unknown): e is PolicyTestLoadError =>
  e instanceof Error && e.name === "PolicyTestLoadError";

/** Compiles every non-test `.rego` file under `dir` with the project's compiler. */
export async function loadPolicyForTest(dir: string, opts: LoadPolicyOptions = {}): Promise<PolicyUnderTest> {
  // The build tools are loaded on use: `toolgate/testing` must not pull the compiler into run time.
  const { findRegoFiles } = await import("../../codegen/policytest/files.js");
  const { compilePolicy, loadOptimizer } = await import("../../codegen/compiler/index.js");
  if (opts.optimize === true) await loadOptimizer();
  const { formatDiagnostic } = await import("../../codegen/diagnostics.js");
  (await import("../../codegen/rego-json/parse-module.js")).registerParseModule();
  const entrypoint = opts.entrypoint ?? "toolgate/authz/decision";
  const files = findRegoFiles([dir], (f) => !f.endsWith("_test.rego"));
  const modules = files.map((file) => ({ file, source: readFileSync(file, "utf8") }));
  const custom = opts.builtins === undefined ? {} : { builtins: opts.builtins };
  const out = compilePolicy({ modules, entrypoints: [entrypoint], optimize: opts.optimize === true, ...custom });
  if (out.errors.length > 0 || out.wasm === null) {
    throw new PolicyTestLoadError(`policy in ${dir} does not compile:\n${out.errors.map(formatDiagnostic).join("\n")}`);
  }
  const host = createHostBuiltins(custom);
  const policy = await loadPolicy(out.wasm, undefined, host.builtins);
  host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
  const dataFile = join(dir, "data.json");
  policy.setData(opts.data ?? (existsSync(dataFile) ? (JSON.parse(readFileSync(dataFile, "utf8")) as object) : {}));
  return {
    entrypoint,
    decide(input) {
      try {
        host.startEvaluation();
        const rs: unknown = policy.evaluate(input, entrypoint);
        if (!Array.isArray(rs) || rs.length !== 1) return deny("policy_undefined");
        return toDecision((rs[0] as { result?: unknown }).result);
      } catch {
        return deny("policy_evaluation_error");
      }
    },
  };
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}
interface MatcherContext {
  isNot: boolean;
}

const show = (d: unknown): string => JSON.stringify(d);

function asDecision(received: unknown): PolicyDecision | null {
  const d = received as Partial<PolicyDecision> | null;
  if (d === null || typeof d !== "object" || typeof d.allow !== "boolean" || typeof d.requires_approval !== "boolean") return null;
  return d as PolicyDecision;
}

/** vitest matchers: pass to `expect.extend(policyMatchers)`. */
export const policyMatchers = {
  toAllow(this: MatcherContext, received: unknown): MatcherResult {
    const d = asDecision(received);
    const pass = d !== null && d.allow && !d.requires_approval;
    return { pass, message: () => `expected decision ${this.isNot ? "not " : ""}to allow, got ${show(received)}` };
  },
  toDeny(this: MatcherContext, received: unknown, reason?: string): MatcherResult {
    const d = asDecision(received);
    const pass = d !== null && !d.allow && !d.requires_approval && (reason === undefined || d.reason === reason);
    const what = reason === undefined ? "to deny" : `to deny with reason ${show(reason)}`;
    return { pass, message: () => `expected decision ${this.isNot ? "not " : ""}${what}, got ${show(received)}` };
  },
  toRequireApproval(this: MatcherContext, received: unknown): MatcherResult {
    const d = asDecision(received);
    const pass = d !== null && !d.allow && d.requires_approval;
    return { pass, message: () => `expected decision ${this.isNot ? "not " : ""}to require approval, got ${show(received)}` };
  },
};
