/** Rego front end: parse, check and rewrite Rego v1 modules into a program for the planner. */
export type * from "./ast.js";
export type * from "./program.js";
export { parseModule, parseQuery, parseTerm } from "./parser.js";
export type { ParseModuleResult, ParseOptions, RegoVersion } from "./parser.js";
export { V0_SYNTAX_HINT, V0_SYNTAX_MESSAGE } from "./parser.js";
export { compileModules, continueCompile, startCompile, stages } from "./compile.js";
export { compileQuery } from "./query.js";
export type { Compilation, CompileOptions, CompileResult, SourceFile, Stage, StageName } from "./compile.js";
export type { QueryOptions } from "./query.js";
export { builtins, lookupBuiltin } from "./builtins.js";
export type { BuiltinSignature, ValueType } from "./builtins.js";
export { prettyBody, prettyExpr, prettyGroup, prettyProgram, prettyQuery, prettyTerm } from "./pretty.js";
