/**
 * The full-size races of limits and natural keys (the tests run a smaller size): 4 worker
 * processes on PostgreSQL and 4 on one SQLite file send 1,000 concurrent calls against one
 * max_sum, then 1,000 calls with one natural key and random operation ids.
 * With --crash, the race with SIGKILLs instead (test/helpers/workers/limit-race-crash.ts): 3 waves that
 * each kill 2 of the 4 processes at a random phase, the killed calls retried (and reconciled) by
 * the next wave with new calls, until every call is answered.
 * Run: TOOLGATE_PG_URL=postgres://... npx tsx bench/limits-race.ts [calls] [--crash]
 */
import { crashRace, crashVerdict } from "../test/helpers/workers/limit-race-crash.js";
import { limitRace, limitVerdict, naturalKeyRace } from "../test/helpers/workers/limit-race.js";
import type { RaceStore } from "../test/helpers/workers/limit-race.js";

const crash = process.argv.includes("--crash");
const calls = Number(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? 1_000);
const maxSum = 10_000;
const stores: RaceStore[] = process.env["TOOLGATE_PG_URL"] ? ["sqlite", "postgres"] : ["sqlite"];
for (const store of crash ? stores : []) {
  const r = await crashRace({ store, workers: 4, calls, maxSum, killWaves: 3, killsPerWave: 2 });
  const v = crashVerdict(r, maxSum);
  console.log(
    `${store}: ${calls} calls, 4 processes, max_sum ${maxSum}, ${r.kills} SIGKILLs (${r.killPhases.join(", ")}), ${r.crashed.size} calls left unanswered and retried, ${r.waves} waves: ` +
      `executed ${v.executed} (effects sum ${v.effectsSum}), refused ${v.refused}, over the cap ${v.over}, wrongly refused ${v.wronglyRefused}, ` +
      `operations with two effects ${v.twice}, effects and answers that disagree ${v.unreported}, other answers ${v.other.length}${v.other.length > 0 ? ` (${[...new Set(v.other)].join(", ")})` : ""}; ${r.elapsed_ms} ms`,
  );
}
for (const store of crash ? [] : stores) {
  const r = await limitRace(store, 4, calls, maxSum);
  const v = limitVerdict(r, maxSum);
  console.log(
    `${store}: ${calls} calls, 4 processes, max_sum ${maxSum}: executed ${v.executed} (sum ${v.effectsSum}, ${v.effects} effects), refused ${v.refused}, ` +
      `over the cap ${v.over}, wrongly refused ${v.wronglyRefused}, other answers ${v.other.length}${v.other.length > 0 ? ` (${[...new Set(v.other)].join(", ")})` : ""}; ${r.elapsed_ms} ms`,
  );
  const n = await naturalKeyRace(store, 4, calls);
  const replays = n.answers.filter((a) => a.reason === "replayed").length;
  const others = n.answers.filter((a) => a.reason !== "success" && a.reason !== "replayed").map((a) => a.reason);
  console.log(`${store}: ${calls} calls with one natural key, random operation ids, 4 processes: ${n.effects.length} effect(s), ${replays} replays, other answers ${others.length}; ${n.elapsed_ms} ms`);
}
