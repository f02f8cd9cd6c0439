import { createLogger } from '@brand/shared/logger';
import { MemberSupervisor, type GroupMember, type MemberEvents } from './memberSupervisor';

const log = createLogger({ service: 'test', level: 'silent' });
const settings = { initialDelayMs: 10, maxDelayMs: 40, maxConsecutiveFailures: 3 };

/** A member the test drives: it records its events and whether it was stopped. */
class FakeMember implements GroupMember {
  events!: MemberEvents;
  stopped = false;
  constructor(private readonly startError?: Error) {}
  start(events: MemberEvents): Promise<void> {
    this.events = events;
    return this.startError ? Promise.reject(this.startError) : Promise.resolve();
  }
  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }
}

function supervise(plan: Array<() => FakeMember> = []) {
  const members: FakeMember[] = [];
  const fatal: unknown[] = [];
  const supervisor = new MemberSupervisor(
    () => {
      const member = (plan.shift() ?? (() => new FakeMember()))();
      members.push(member);
      return member;
    },
    log,
    (err) => fatal.push(err),
    settings,
  );
  return { supervisor, members, fatal };
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
};

it('replaces a member that failed for good with a new one, stopping the old', async () => {
  const { supervisor, members, fatal } = supervise();
  await supervisor.start();
  members[0]!.events.joined();
  members[0]!.events.failed(new Error('The coordinator is not aware of this member'));
  await until(() => members.length === 2);
  expect(members[0]!.stopped).toBe(true);
  expect(fatal).toEqual([]);
  await supervisor.stop();
  expect(members[1]!.stopped).toBe(true);
});

it('gives up (onFatal) only after consecutive failures without a join', async () => {
  const { supervisor, members, fatal } = supervise();
  await supervisor.start();
  for (let n = 0; n < 3; n++) {
    members[n]!.events.failed(new Error(`failure ${n}`));
    await until(() => members.length === n + 2);
  }
  expect(fatal).toEqual([]);
  members[3]!.events.failed(new Error('failure 3'));
  await until(() => fatal.length === 1);
  expect((fatal[0] as Error).message).toBe('failure 3');
  await supervisor.stop();
});

it('a join resets the count of failures', async () => {
  const { supervisor, members, fatal } = supervise();
  await supervisor.start();
  for (let n = 0; n < 6; n++) {
    members[n]!.events.joined();
    members[n]!.events.failed(new Error(`failure ${n}`));
    await until(() => members.length === n + 2);
  }
  expect(fatal).toEqual([]);
  await supervisor.stop();
});

it('retries a member that cannot even start, and ignores events of replaced members', async () => {
  const { supervisor, members, fatal } = supervise([
    () => new FakeMember(),
    () => new FakeMember(new Error('broker down')),
  ]);
  await supervisor.start();
  members[0]!.events.failed(new Error('dropped'));
  await until(() => members.length === 3); // the second failed to start; a third followed
  members[0]!.events.failed(new Error('late event of a replaced member'));
  await new Promise((r) => setTimeout(r, 60));
  expect(members.length).toBe(3);
  expect(fatal).toEqual([]);
  await supervisor.stop();
});

it('stop() cancels a pending replacement', async () => {
  const { supervisor, members } = supervise();
  await supervisor.start();
  members[0]!.events.failed(new Error('dropped'));
  await supervisor.stop();
  expect(members[0]!.stopped).toBe(true);
  await new Promise((r) => setTimeout(r, 60));
  expect(members.length).toBe(1);
});

/** What kafkajs throws when the broker refuses the SASL credentials. */
function authenticationError(): Error {
  const err = new Error('SASL SCRAM SHA512 authentication failed');
  err.name = 'KafkaJSSASLAuthenticationError';
  return err;
}

describe('issue 43: a broker refusing the credentials is not a crash loop', () => {
  it('boots although the first member cannot start, and retries it', async () => {
    const { supervisor, members, fatal } = supervise([
      () => new FakeMember(authenticationError()),
      () => new FakeMember(authenticationError()),
    ]);
    await expect(supervisor.start()).resolves.toBe(false);
    await until(() => members.length === 3); // two refused starts, then one that works
    expect(fatal).toEqual([]);
    await supervisor.stop();
  });

  it('never gives up while the refusal lasts, however many times', async () => {
    const refusals = Array.from({ length: 8 }, () => () => new FakeMember(authenticationError()));
    const { supervisor, members, fatal } = supervise(refusals);
    await supervisor.start();
    await until(() => members.length === 9);
    expect(fatal).toEqual([]);
    await supervisor.stop();
  });
});
