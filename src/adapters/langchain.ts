/**
 * toolgate/langchain: the gated tools as LangChain structured tools (usable in LangGraph's
 * ToolNode and createReactAgent). Input schemas come from the manifest; every call goes
 * through `runtime.call` and the envelope (JSON) is the tool message the model reads.
 * Approvals are the model's loop: approval_required carries the approval_id, and once a
 * human approved it through toolgate the model calls again with it.
 */
import { tool } from "@langchain/core/tools";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { Runtime } from "../runtime/runtime.js";
import { advertisedInputSchema } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCallsOptions } from "./gated-calls.js";

export async function createLangChainTools(runtime: Runtime, options: GatedCallsOptions): Promise<DynamicStructuredTool[]> {
  const gate = gatedCalls(runtime, options);
  const tools: DynamicStructuredTool[] = [];
  for (const entry of await gate.tools()) {
    const schema = advertisedInputSchema(entry) as Parameters<typeof tool>[1]["schema"];
    tools.push(
      tool(async (input: unknown) => JSON.stringify(await gate.call(entry, input, "")), {
        name: entry.name,
        description: entry.description,
        schema: schema as never,
      }) as unknown as DynamicStructuredTool,
    );
  }
  return tools;
}
