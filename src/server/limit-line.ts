/** One limit's figures as the inbox shows them beside a pending approval: "payouts_per_currency: 1500 of 10000 used in the last 24h (2 calls)". */
import type { CallLimit } from "../runtime/limit-figures.js";
import { formatWindow } from "../runtime/limit-figures.js";
import type { LimitFigures } from "../store/store.js";

export function limitLine(limit: CallLimit, f: LimitFigures): string {
  const { spec } = limit;
  const used = spec.sum === null ? `${f.count}${spec.max_count === null ? "" : ` of ${spec.max_count}`} calls` : `${f.sum}${spec.max_sum === null ? "" : ` of ${spec.max_sum}`} ${spec.sum} used`;
  const count = spec.sum === null ? "" : ` (${f.count} call${f.count === 1 ? "" : "s"}${spec.max_count === null ? "" : ` of ${spec.max_count}`})`;
  return `${spec.name}: ${used} in the last ${formatWindow(spec.window_ms)}${count}; this call ${spec.sum === null ? "adds 1" : `adds ${limit.amount}`}`;
}
