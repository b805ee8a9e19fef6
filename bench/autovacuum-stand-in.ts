import { Client } from 'pg';

/**
 * Whether a scenario must vacuum its scratch database itself: on a server running with
 * `autovacuum = off` (the shared one of the development machine), every updated table grows with
 * dead rows for the whole run (a conversation row updated by each message: 3,000 live rows took
 * 29 MB after 30 min) and its queries slow with it, which measures the server's setting, not the
 * service. Such a scenario vacuums after each minute, as autovacuum would (its default naptime is
 * a minute), and says so.
 */
export async function mustStandInForAutovacuum(database: Client, scenario: string): Promise<boolean> {
  const { rows } = await database.query<{ autovacuum: string }>('SHOW autovacuum');
  if (rows[0].autovacuum === 'on') return false;
  console.log(`  this PostgreSQL runs with autovacuum off: the ${scenario} vacuums its scratch database after each minute`);
  return true;
}

/** Vacuums (and analyzes) `databaseUrl` each minute until stopped, when the server's autovacuum is off. */
export async function vacuumEachMinuteIfNeeded(databaseUrl: string, scenario: string): Promise<{ stop(): Promise<void> }> {
  const database = new Client({ connectionString: databaseUrl });
  await database.connect();
  if (!(await mustStandInForAutovacuum(database, scenario))) {
    await database.end();
    return { stop: async () => undefined };
  }
  let vacuuming: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    vacuuming = vacuuming
      .then(() => database.query('VACUUM (ANALYZE)'))
      .catch((err: Error) => console.log(`  vacuum failed: ${err.message}`));
  }, 60_000);
  return {
    async stop() {
      clearInterval(timer);
      await vacuuming;
      await database.end();
    },
  };
}
