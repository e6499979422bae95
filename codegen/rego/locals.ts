/** Fresh local variable names (`__localN__`, like OPA) that never collide with source names. */
export type LocalKind = "user" | "wildcard" | "temp";

export class LocalVarGenerator {
  private counter = 0;
  /** Generated name -> source name (user vars and wildcards). */
  readonly sourceNames = new Map<string, string>();
  /** Wildcards and compiler temporaries: never user-visible, local to the expression that made them. */
  readonly temps = new Set<string>();
  /** Every local variable name (generated, or kept as written in a query). Other vars are global names. */
  readonly locals = new Set<string>();

  constructor(
    private readonly reserved: ReadonlySet<string>,
    /** Queries use their own prefix so their locals never meet the program's. */
    private readonly prefix = "__local",
  ) {}

  fresh(kind: LocalKind, sourceName?: string): string {
    let name: string;
    do name = `${this.prefix}${this.counter++}__`;
    while (this.reserved.has(name));
    if (sourceName !== undefined) this.sourceNames.set(name, sourceName);
    if (kind !== "user") this.temps.add(name);
    this.locals.add(name);
    return name;
  }

  /** Source names of the user locals generated between two `count` readings. */
  namesBetween(start: number, end: number): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = start; i < end; i++) {
      const name = `${this.prefix}${i}__`;
      const s = this.sourceNames.get(name);
      if (s !== undefined && s !== "_") out[name] = s;
    }
    return out;
  }

  /** How many names were generated so far. */
  get count(): number {
    return this.counter;
  }

  /** Registers a local that keeps its source name (query variables). */
  keep(name: string): string {
    this.locals.add(name);
    return name;
  }

  /** The name to show users for a (possibly generated) variable. */
  display(name: string): string {
    return this.sourceNames.get(name) ?? name;
  }
}
