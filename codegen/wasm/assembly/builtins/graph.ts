// graph.reachable and graph.reachable_paths: a graph is an object from a vertex to
// its neighbours (an array or a set; anything else has none), as in OPA.
import { mkArray, mkSet, colLen, arrGet, arrPush } from "../value";
import { objGet, setAdd, setHas, shallowCopy } from "../collections";
import { typeError } from "../errors";
import { isArr, isSet, isObj } from "./util";

@inline function isVertices(v: usize): bool { return isArr(v) || isSet(v); }
@inline function edgeCount(edges: usize): i32 { return isVertices(edges) ? colLen(edges) : 0; }

/** Every vertex reached from the initial ones that is a key of the graph (breadth first). */
export function tg_graph_reachable(graph: usize, initial: usize): usize {
  if (!isObj(graph)) return typeError("graph.reachable", 1, "object", graph);
  if (!isVertices(initial)) return typeError("graph.reachable", 2, "{array, set}", initial);
  const queue = mkArray(colLen(initial)); // an array even when the initial vertices are a set
  for (let i = 0; i < colLen(initial); i++) arrPush(queue, arrGet(initial, i));
  const reached = mkSet(0);
  for (let q = 0; q < colLen(queue); q++) {
    const node = arrGet(queue, q);
    const edges = objGet(graph, node);
    if (edges == 0) continue;
    const n = edgeCount(edges);
    for (let j = 0; j < n; j++) {
      const next = arrGet(edges, j);
      if (!setHas(reached, next)) arrPush(queue, next);
    }
    setAdd(reached, node);
  }
  return reached;
}

function appended(path: usize, x: usize): usize {
  const p = mkArray(colLen(path) + 1);
  for (let i = 0; i < colLen(path); i++) arrPush(p, arrGet(path, i));
  arrPush(p, x);
  return p;
}

/** OPA's pathBuilder: extends `path` through `root`, committing a path at a leaf, an unknown vertex or a cycle. */
function paths(graph: usize, root: usize, path: usize, out: usize, reached: usize): void {
  const edges = objGet(graph, root);
  if (edges == 0) { setAdd(out, path); return; }
  const p = appended(path, root);
  const n = edgeCount(edges);
  if (n == 0) { setAdd(out, p); return; }
  const seen = shallowCopy(reached);
  setAdd(seen, root);
  for (let j = 0; j < n; j++) {
    const next = arrGet(edges, j);
    if (setHas(seen, next)) setAdd(out, p);
    else paths(graph, next, p, out, seen);
  }
}

/** The set of paths (arrays of vertices) from each initial vertex in the graph. */
export function tg_graph_reachable_paths(graph: usize, initial: usize): usize {
  if (!isObj(graph)) return typeError("graph.reachable_paths", 1, "object", graph);
  if (!isVertices(initial)) return typeError("graph.reachable_paths", 2, "{array, set}", initial);
  const out = mkSet(0);
  for (let i = 0; i < colLen(initial); i++) {
    const node = arrGet(initial, i);
    const edges = objGet(graph, node);
    if (edges == 0) continue;
    const n = edgeCount(edges);
    const start = appended(mkArray(0), node);
    if (n == 0) { setAdd(out, start); continue; }
    const seen = mkSet(1);
    setAdd(seen, node);
    for (let j = 0; j < n; j++) paths(graph, arrGet(edges, j), start, out, seen);
  }
  return out;
}
