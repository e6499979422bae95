// Type-checks an import of the core public entries under the consumer's strict tsconfig
// (types: ["node"], no DOM lib, skipLibCheck false).
import { expect } from "vitest";
import * as evals from "toolgate/evals";
import type { Manifest, StandaloneValidator, ToolHandler, TrustedContext } from "toolgate/generated-runtime";
import * as postgres from "toolgate/postgres";
import * as server from "toolgate/server";
import * as testing from "toolgate/testing";
import * as runtime from "toolgate";
import "toolgate/vitest";

export const entries = [evals, postgres, server, testing, runtime];
export type GeneratedRuntime = [Manifest, StandaloneValidator, ToolHandler<{ a: string }, { b: number }, "x">, TrustedContext];
export function requiresApproval(decision: unknown): void {
  expect(decision).toRequireApproval();
}
