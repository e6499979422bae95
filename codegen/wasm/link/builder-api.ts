/**
 * The module builder under the names binaryen.js uses (`Module`, `ExpressionRef`,
 * `i32`, `none`, `createType`), so emitter code written against binaryen.js's API
 * builds with it unchanged: `import * as binaryen from "../link/builder-api.js"`.
 */
export { Module } from "./module-builder.js";
export type { ExpressionRef } from "./expr.js";
export type { Type } from "./types.js";
export { auto, createType, expandType, f32, f64, i32, i64, none, unreachable } from "./types.js";
