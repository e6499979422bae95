// Imports the SDK provides in module `env`.
@external("env", "opa_abort")
export declare function opa_abort(addr: usize): void;

@external("env", "opa_println")
export declare function opa_println(addr: usize): void;
