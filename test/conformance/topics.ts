/**
 * Topic classes: builtin topics are aggregates, arithmetic, array,
 * sets, strings and every topic named after a builtin or builtin family; all other
 * topics are language topics.
 */
export type TopicClass = "language" | "builtin";

const exact = new Set([
  "aggregates", "arithmetic", "array", "sets", "strings", "sprintf", "casts", "time",
  "numbersrange", "trim", "replacen", "units", "indexof", "split", "upper", "lower",
  "startswith", "endswith", "concat", "contains", "sort", "count", "sum", "min", "max",
]);
// Builtin families named by prefix: object*, type*, globs*, regex*, json*, netcidr*, base64*.
const prefixes = ["object", "type", "globs", "regex", "json", "netcidr", "base64"];

export function topicClass(topic: string): TopicClass {
  if (exact.has(topic)) return "builtin";
  return prefixes.some((p) => topic.startsWith(p)) ? "builtin" : "language";
}
