// Type-checks the adapter entries together with their frameworks' own declarations (ai,
// @openai/agents, langchain, @langchain/langgraph) under the starter's tsconfig as written:
// strict, skipLibCheck false.
import * as aiSdk from "toolgate/ai-sdk";
import * as langchain from "toolgate/langchain";
import * as openaiAgents from "toolgate/openai-agents";

export const frameworkEntries = [aiSdk, langchain, openaiAgents];
