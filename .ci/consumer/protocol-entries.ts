// Type-checks the MCP and agent-evaluation entries; checked with skipLibCheck because the
// protocol SDKs' own declarations are not checked here.
import * as evalsAiSdk from "toolgate/evals/ai-sdk";
import * as mcp from "toolgate/mcp";

export const protocolEntries = [evalsAiSdk, mcp];
