import { status } from '@grpc/grpc-js';
import { ServiceCallError } from '../clients/memberCaller';
import { changedWhileSavingMessage, decideOntoRead } from './ontoWhatWasRead';
import { changedFields, shownName } from './shownFields';

type Settings = { label: string; events: string[] };
const page: Settings = { label: 'Orders', events: ['payout.paid'] };
const body = (posted: Settings) => ({
  ...posted,
  [shownName('label')]: page.label,
  [shownName('events')]: page.events.join(','),
});
const changedSince = () =>
  new ServiceCallError(status.FAILED_PRECONDITION, 'precondition_failed', 'changed', undefined);

/** A row read at versions in turn, and a service refusing a write named on an older one. */
function service(reads: Settings[], refuseWrites: number) {
  const writes: Array<{ on: number; changes: object }> = [];
  let version = 0;
  let refusals = refuseWrites;
  return {
    writes,
    read: () => ({ version, row: reads[version]! }),
    readAgain: () => {
      version = Math.min(version + 1, reads.length - 1);
      return Promise.resolve({ version, row: reads[version]! });
    },
    write: (read: { version: number }, changes: object) => {
      if (refusals-- > 0) return Promise.reject(changedSince());
      writes.push({ on: read.version, changes });
      return Promise.resolve();
    },
  };
}

const save = (posted: Settings, svc: ReturnType<typeof service>) =>
  decideOntoRead({
    read: svc.read(),
    readAgain: svc.readAgain,
    decide: (r) => changedFields(body(posted), posted, r.row),
    write: (r, decided) => svc.write(r, decided.changes),
  });

describe('decideOntoRead', () => {
  it('writes once, naming the read, when nothing changed meanwhile', async () => {
    const svc = service([page], 0);
    const saved = await save({ ...page, label: 'Mine' }, svc);
    expect(saved.outcome).toBe('written');
    expect(svc.writes).toEqual([{ on: 0, changes: { label: 'Mine' } }]);
  });

  it('refused once over a change of another field, reads again and writes beside it', async () => {
    const theirs = { ...page, events: ['payout.paid', 'record.deleted'] };
    const svc = service([page, theirs], 1);
    const saved = await save({ ...page, label: 'Mine' }, svc);
    expect(saved.outcome).toBe('written');
    expect(svc.writes).toEqual([{ on: 1, changes: { label: 'Mine' } }]);
  });

  it('refused once over a change of the same field, ends as the usual conflict', async () => {
    const svc = service([page, { ...page, label: 'Theirs' }], 1);
    const saved = await save({ ...page, label: 'Mine' }, svc);
    expect(saved.outcome).toBe('conflict');
    expect(saved.decided.conflicts).toEqual(['label']);
    expect(saved.read.row.label).toBe('Theirs');
    expect(svc.writes).toEqual([]);
  });

  it('refused twice, reads once more and ends as changed, nothing written', async () => {
    const third = { ...page, events: ['record.deleted'] };
    const svc = service([page, { ...page, events: [] }, third], 2);
    const saved = await save({ ...page, label: 'Mine' }, svc);
    expect(saved.outcome).toBe('changed');
    expect(saved.read.row).toEqual(third);
    expect(saved.decided).toEqual({ changes: { label: 'Mine' }, conflicts: [] });
    expect(svc.writes).toEqual([]);
  });

  it('another refusal is the route’s to show, not retried', async () => {
    const svc = service([page], 0);
    const refused = new ServiceCallError(
      status.INVALID_ARGUMENT,
      'validation_failed',
      'bad',
      undefined,
    );
    await expect(
      decideOntoRead({
        read: svc.read(),
        readAgain: svc.readAgain,
        decide: () => ({ conflicts: [] }),
        write: () => Promise.reject(refused),
      }),
    ).rejects.toBe(refused);
  });

  it('says what changed again', () => {
    expect(changedWhileSavingMessage('receiver')).toBe(
      'Not saved: the receiver changed again while your save was being written. The form keeps your changes, with everything else as it is now: check it and save again.',
    );
  });
});
