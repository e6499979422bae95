/** Rego front end: parse, check and rewrite Rego v1 modules into a program for the planner. */
export type * from "./ast.js";
export { parseModule, parseQuery, parseTerm } from "./parser.js";
export type { ParseModuleResult } from "./parser.js";
