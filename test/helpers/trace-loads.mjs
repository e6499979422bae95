// `node --import trace-loads.mjs ...`: appends the URL of every module loaded through the
// ESM loader to the file named by TOOLGATE_TRACE_LOADS.
import { register } from "node:module";

register("./trace-loads-hooks.mjs", import.meta.url, { data: { file: process.env.TOOLGATE_TRACE_LOADS } });
