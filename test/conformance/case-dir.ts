import { resolve } from "node:path";

/** The default case directory: the OPA v1 cases kept beside the project. */
export const defaultCaseDir = resolve(new URL("../../../shared/conformance/opa-v1", import.meta.url).pathname);
