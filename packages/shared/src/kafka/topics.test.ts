import {
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  type Admin,
} from 'kafkajs';
import { awaitTopicLeaders, createTopicWithLeaders, isSettlingTopicError } from './topics';

// kafkajs' constructors take more than its type declarations say: a protocol error is made
// from its code's entry (3: UNKNOWN_TOPIC_OR_PARTITION, 5: LEADER_NOT_AVAILABLE), and a
// wrapper (its retrier's bail) keeps the error it wraps as its cause.
const ProtocolError = KafkaJSProtocolError as unknown as new (e: {
  type: string;
  code: number;
  retriable: boolean;
  message: string;
}) => KafkaJSProtocolError;
const NonRetriableError = KafkaJSNonRetriableError as unknown as new (
  e: Error,
  opts: { cause: Error },
) => KafkaJSNonRetriableError;
const protocolError = (type: string, code: number): KafkaJSProtocolError =>
  new ProtocolError({ type, code, retriable: true, message: type });

type Answer = Error | { leaders: number[] };

/**
 * An admin whose metadata answers `answers` in turn (the last one from then on) and whose
 * createTopics records what it was asked: the broker's side of a topic settling.
 */
function scriptedAdmin(answers: Answer[]) {
  const created: unknown[] = [];
  let asked = 0;
  const admin = {
    createTopics: (req: { topics: unknown[]; waitForLeaders?: boolean }) => {
      created.push(req);
      return Promise.resolve(true);
    },
    fetchTopicMetadata: ({ topics }: { topics: string[] }) => {
      const answer = answers[Math.min(asked++, answers.length - 1)]!;
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve({
        topics: [
          {
            name: topics[0]!,
            partitions: answer.leaders.map((leader, partitionId) => ({
              partitionId,
              leader,
              partitionErrorCode: leader < 0 ? 5 : 0,
              replicas: [],
              isr: [],
            })),
          },
        ],
      });
    },
  };
  return { admin: admin as unknown as Admin, created, asked: () => asked };
}

describe('awaitTopicLeaders', () => {
  it('waits through "does not host this topic-partition" and leaderless partitions, which a KRaft broker answers for a topic it has just created', async () => {
    const broker = scriptedAdmin([
      protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3),
      protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3),
      protocolError('LEADER_NOT_AVAILABLE', 5),
      { leaders: [1, -1, 1] },
      { leaders: [1, 1, 1] },
    ]);
    await awaitTopicLeaders(broker.admin, 't', { pollMs: 1 });
    expect(broker.asked()).toBe(5);
  });

  it('throws any other error at once', async () => {
    const broker = scriptedAdmin([protocolError('TOPIC_AUTHORIZATION_FAILED', 29)]);
    await expect(awaitTopicLeaders(broker.admin, 't', { pollMs: 1 })).rejects.toThrow(
      'TOPIC_AUTHORIZATION_FAILED',
    );
    expect(broker.asked()).toBe(1);
  });

  it('gives up at its deadline, saying what it saw last', async () => {
    const broker = scriptedAdmin([{ leaders: [1, -1] }]);
    await expect(
      awaitTopicLeaders(broker.admin, 'orders', { timeoutMs: 30, pollMs: 5 }),
    ).rejects.toThrow(/orders has no leaders after 30 ms \(1 of 2 partitions without a leader\)/);
    expect(broker.asked()).toBeGreaterThan(1);
  });
});

describe('createTopicWithLeaders', () => {
  it('creates without kafkajs’ own wait, then returns once every partition has a leader', async () => {
    const broker = scriptedAdmin([
      protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3),
      { leaders: [1, 1] },
    ]);
    await expect(
      createTopicWithLeaders(broker.admin, { topic: 't', numPartitions: 2 }, { pollMs: 1 }),
    ).resolves.toBe(true);
    expect(broker.created).toEqual([
      { topics: [{ topic: 't', numPartitions: 2 }], waitForLeaders: false },
    ]);
    expect(broker.asked()).toBe(2);
  });
});

describe('isSettlingTopicError', () => {
  it('reads the type of the error or of the one it wraps', () => {
    expect(isSettlingTopicError(protocolError('LEADER_NOT_AVAILABLE', 5))).toBe(true);
    expect(
      isSettlingTopicError(
        new KafkaJSNumberOfRetriesExceeded(protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3), {
          retryCount: 5,
          retryTime: 300,
        }),
      ),
    ).toBe(true);
    const bailed = protocolError('LEADER_NOT_AVAILABLE', 5);
    expect(isSettlingTopicError(new NonRetriableError(bailed, { cause: bailed }))).toBe(true);
    expect(isSettlingTopicError(new Error('LEADER_NOT_AVAILABLE'))).toBe(false);
    expect(isSettlingTopicError(undefined)).toBe(false);
  });
});
