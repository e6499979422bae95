// Type-checks an import of every public entry under the consumer's strict tsconfig
// (types: ["node"], no DOM lib, skipLibCheck false).
import { expect } from "vitest";
import * as aiSdk from "toolgate/ai-sdk";
import * as evals from "toolgate/evals";
import * as evalsAiSdk from "toolgate/evals/ai-sdk";
import type { Manifest, StandaloneValidator, ToolHandler, TrustedContext } from "toolgate/generated-runtime";
import * as langchain from "toolgate/langchain";
import * as mcp from "toolgate/mcp";
import * as openaiAgents from "toolgate/openai-agents";
import * as server from "toolgate/server";
import * as testing from "toolgate/testing";
import * as runtime from "toolgate";
import "toolgate/vitest";

export const entries = [aiSdk, evals, evalsAiSdk, langchain, mcp, openaiAgents, server, testing, runtime];
export type GeneratedRuntime = [Manifest, StandaloneValidator, ToolHandler<{ a: string }, { b: number }, "x">, TrustedContext];
export function requiresApproval(decision: unknown): void {
  expect(decision).toRequireApproval();
}
