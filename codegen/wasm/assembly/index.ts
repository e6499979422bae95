// Entry point of the runtime library: everything exported here is a wasm export.
export * from "./abi";
export * from "./api";
export { tg_strict_builtin_errors } from "./errors";
export { tg_input_paths } from "./input-paths";
export * from "./builtins/index";
