/** The environment variable naming the PostgreSQL store; a module of its own so naming it does not load `pg`. */
export const pgUrlEnvVar = "TOOLGATE_PG_URL";
