// A PostgreSQL primary and a streaming standby of the fault suite's own, as a managed
// high-availability database keeps them (RDS Multi-AZ, Cloud SQL HA): the standby is made by
// pg_basebackup from the primary and replicates synchronously (a commit is acknowledged once the
// standby has it), so a failover loses nothing acknowledged. The failover kills the primary
// and promotes the standby with pg_ctl promote; the caller moves its endpoint (a TCP proxy
// standing for the managed endpoint's DNS name).
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@brand/testkit';
import { binDir, postgresIds, run } from './ownPostgres';

export interface PostgresNode {
  port: number;
}

export interface PostgresPair {
  /** The server that takes writes now: the primary, or the standby once promoted. */
  primary(): PostgresNode;
  /**
   * Stops the primary at once (a lost machine: no checkpoint, connections cut), waits for
   * `detection`, and promotes the standby; resolves once it takes writes.
   */
  failover(detection: () => Promise<void>): Promise<{ promotedInMs: number }>;
  remove(): Promise<void>;
}

export async function startPostgresPair(): Promise<PostgresPair> {
  const bin = await binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-faults-pg-pair-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
  }
  const primaryData = path.join(dir, 'primary');
  const standbyData = path.join(dir, 'standby');
  const ports = { primary: await freePort(), standby: await freePort() };
  const pgCtl = (data: string, ...args: string[]) =>
    run(path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const options = (port: number, synchronous: boolean) =>
    [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      '-c wal_level=replica -c max_wal_senders=5 -c hot_standby=on',
      // the primary waits for its standby, as managed HA databases do ('*': the one standby);
      // the standby, once promoted, has none to wait for
      synchronous ? "-c synchronous_standby_names='*' -c synchronous_commit=on" : '',
    ].join(' ');
  const start = (data: string, port: number, log: string, synchronous: boolean) =>
    pgCtl(
      data,
      'start',
      '-w',
      '-t',
      '60',
      '-l',
      path.join(dir, log),
      '-o',
      options(port, synchronous),
    );

  await run(path.join(bin, 'initdb'), [
    '-D',
    primaryData,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
  ]);
  await start(primaryData, ports.primary, 'primary.log', true);
  // -R writes standby.signal and primary_conninfo: the copy starts as a standby of the primary
  await run(path.join(bin, 'pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(ports.primary),
    '-U',
    'postgres',
    '-D',
    standbyData,
    '-R',
    '-X',
    'stream',
  ]);
  await start(standbyData, ports.standby, 'standby.log', false);

  let current: 'primary' | 'standby' = 'primary';
  return {
    primary: () => ({ port: ports[current] }),
    async failover(detection) {
      if (current !== 'primary') throw new Error('the standby was promoted already');
      // immediate: no shutdown checkpoint, connections cut, as when the machine is lost
      await pgCtl(primaryData, 'stop', '-m', 'immediate', '-w');
      await detection();
      const started = Date.now();
      await pgCtl(standbyData, 'promote', '-w', '-t', '60');
      current = 'standby';
      return { promotedInMs: Date.now() - started };
    },
    async remove() {
      for (const data of [primaryData, standbyData])
        await pgCtl(data, 'stop', '-m', 'immediate', '-w').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
