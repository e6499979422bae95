/** The `toolgate` executable: runs the CLI on the process arguments and sets the exit code. */
import { main } from "./main.js";

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // A bug, not a user error: say so with the stack, and fail.
  console.error(`toolgate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 70;
}
