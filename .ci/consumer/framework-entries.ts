// Type-checks an import of the entries built on agent frameworks. Their own declarations
// (the MCP SDK, ai, @openai/agents, @langchain/core) name DOM types such as HeadersInit,
// so this file is checked with skipLibCheck; toolgate's declarations are checked strictly
// through entries.ts.
import * as aiSdk from "toolgate/ai-sdk";
import * as evalsAiSdk from "toolgate/evals/ai-sdk";
import * as langchain from "toolgate/langchain";
import * as mcp from "toolgate/mcp";
import * as openaiAgents from "toolgate/openai-agents";

export const frameworkEntries = [aiSdk, evalsAiSdk, langchain, mcp, openaiAgents];
