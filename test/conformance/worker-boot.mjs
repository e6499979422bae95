// Worker entry: worker threads do not inherit tsx's module hooks from every
// launcher, so register them here before loading the TypeScript worker.
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
