/**
 * What answers the agent's calls during `toolgate agent-eval`: your own handlers,
 * wrapped per scenario with the scripted responses (slow, partial, silent, stale,
 * retryable, terminal, timeout, approval_required). Effects of writes are counted.
 */
import { handlerSurface } from "toolgate/evals";
import { manifest } from "../generated/index.js";
import { handlers } from "../src/handlers.js";

export const surfaces = { project: () => handlerSurface(handlers, manifest) };
