// node scripts/lib/createDatabase.cjs <postgres-url>: creates the database named in the
// URL unless it exists (connecting to the server's "postgres" database to do so).
const { Client } = require('pg');

async function main() {
  const target = new URL(process.argv[2]);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing unusual database name "${name}"`);
  const admin = new URL(target);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database ${name}`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(`could not create the database: ${err.message}`);
  process.exit(1);
});
