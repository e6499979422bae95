// A large generated policy and inputs for bench:large: big objects looked up by
// key, sets and objects built by comprehensions in an order unrelated to key
// order, and many rules that each scan the whole input.
import { mulberry32 } from "../../test/helpers/prng.js";

export const ENTRYPOINT = "large/decision";
export const FLOOR_ENTRYPOINT = "large/floor";
export const QUADRATIC_ENTRYPOINT = "large/quadratic";

/** Rego for `rules` generated kind rules plus the fixed comprehension and lookup rules. */
export function largePolicy(rules: number): string {
  const kinds: string[] = [];
  for (let k = 0; k < rules; k++) {
    kinds.push(`kind_${k} contains id if {
  some id, r in input.resources
  r.kind == "kind_${k}"
  input.users[r.owner].team == "team_${k % 7}"
  dep := input.resources[r.deps[0]]
  dep.kind != "kind_${(k + 1) % rules}"
}
`);
  }
  return `package large

import rego.v1

# reads nothing: the cost of passing the input in, for subtraction
floor := 1

# sets and objects built by comprehensions, in input order (not key order)
names := {r.name | some r in input.resources}
by_name := {r.name: id | some id, r in input.resources}
owners := {r.owner | some r in input.resources}
tags := {t | some r in input.resources; some t in r.tags}
team_of := {u: x.team | some u, x in input.users}

# lookups of many keys in big objects and sets
missing_deps contains [id, d] if {
  some id, r in input.resources
  some d in r.deps
  not input.resources[d]
}

unknown_owner contains id if {
  some id, r in input.resources
  not input.users[r.owner]
}

# a collection built once in the body, then probed for every user
resolved := n if {
  index := {r.name: id | some id, r in input.resources}
  n := count([1 | some u in input.users; index[u.wants]])
}

wanted_names := n if {
  known := {r.name | some r in input.resources}
  n := count([1 | some u in input.users; u.wants in known])
}

# complete rules (and a function called with a constant) over the whole input,
# referenced inside loops over the whole input: linear when a rule's value is computed
# once per evaluation, quadratic when every iteration computes it again
quadratic := {
  "owning_users": count([u | some u, _ in input.users; owners[u]]),
  "named_once": count([id | some id, r in input.resources; by_name[r.name] == id]),
  "within_team_size": count([id | some id, r in input.resources; count(r.tags) < team_size("team_3")]),
}

# a function over the whole input, called with a constant argument inside a loop
team_size(t) := count([u | some u, x in input.users; x.team == t])

${kinds.join("\n")}
decision := {
  "names": count(names),
  "by_name": count(by_name),
  "owners": count(owners),
  "tags": count(tags),
  "teams": count(team_of),
  "missing_deps": count(missing_deps),
  "unknown_owner": count(unknown_owner),
  "resolved": resolved,
  "wanted_names": wanted_names,
  "kinds": [${Array.from({ length: rules }, (_, k) => `count(kind_${k})`).join(", ")}],
}
`;
}

export interface LargeInput {
  readonly resources: Record<string, { name: string; kind: string; owner: string; tags: string[]; deps: string[] }>;
  readonly users: Record<string, { team: string; wants: string }>;
}

const hex = (rand: () => number): string => Math.floor(rand() * 2 ** 32).toString(16).padStart(8, "0");

/** An input of `n` resources (keys in random order) and n/2 users; `rules` kinds. */
export function largeInput(n: number, rules: number, seed = 7): LargeInput {
  const rand = mulberry32(seed);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(`res-${hex(rand)}-${i}`);
  const users = Math.max(1, n >> 1);
  const resources: LargeInput["resources"] = {};
  const names: string[] = [];
  for (const id of ids) {
    const name = `n-${hex(rand)}-${names.length}`;
    names.push(name);
    resources[id] = {
      name,
      kind: `kind_${Math.floor(rand() * rules)}`,
      // one owner in ten does not exist
      owner: `user-${Math.floor(rand() * users * 1.1)}`,
      tags: [`t${Math.floor(rand() * 200)}`, `t${Math.floor(rand() * 200)}`],
      deps: [ids[Math.floor(rand() * n)]!, rand() < 0.1 ? `res-gone-${Math.floor(rand() * n)}` : ids[Math.floor(rand() * n)]!],
    };
  }
  const order = Array.from({ length: users }, (_, i) => i);
  for (let i = users - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const userObj: LargeInput["users"] = {};
  for (const i of order) {
    userObj[`user-${i}`] = { team: `team_${Math.floor(rand() * 7)}`, wants: rand() < 0.8 ? names[Math.floor(rand() * n)]! : `n-none-${i}` };
  }
  return { resources, users: userObj };
}
