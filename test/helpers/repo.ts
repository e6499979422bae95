/** Where the repository and the `toolgate` executable are, for tests that name files in it. */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const cliBin = join(repoRoot, "bin", "toolgate.js");
