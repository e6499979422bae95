/**
 * The agent `toolgate agent-eval` evaluates: a model through the AI SDK. Any provider
 * works; this one is a local OpenAI-compatible endpoint
 * (`npm install ai @ai-sdk/openai-compatible`).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiSdkAgent } from "toolgate/evals/ai-sdk";

const provider = createOpenAICompatible({
  name: "local",
  baseURL: process.env.OPENAI_BASE_URL ?? "http://127.0.0.1:8080/v1",
  apiKey: process.env.OPENAI_API_KEY ?? "none",
});
const model = process.env.EVAL_MODEL ?? "local-model";

export const agent = aiSdkAgent({ model: provider(model), name: model, temperature: 0 });
