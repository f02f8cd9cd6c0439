// Issue 35: the local stack listens on loopback only. The processes `npm run up` starts are
// started here by the same shell functions (localStackDriver: scripts/lib/localStack.sh, under
// scripts/lib/supervise.sh, with config/local.env loaded as up loads it; only ports, data and
// secrets are the test's own), plus a broker started by scripts/kafka.sh as up starts one.
// Then every TCP socket each of those processes listens on must be on 127.0.0.1: a listener
// on 0.0.0.0 or :: (any address) fails the test.
import { listeningSockets } from '@brand/testkit';
import { useLocalStack } from './localStackDriver';

/** What up.sh starts between loading its settings and printing the banner, minus the seeding. */
const STEPS = `
start_local_services
start_example_receiver
start_dev_idp owner@loopback.test
`;

/** The processes up starts, by the name supervise gives them. */
const PROCESSES = [
  'records',
  'plans',
  'gateway',
  'webhooks',
  'mailbox',
  'console',
  'example-receiver',
  'dev-idp',
];

const stack = useLocalStack(STEPS);

it('starts every process of the local stack', () => {
  expect([...stack().startedPids().keys()].sort()).toEqual([...PROCESSES].sort());
});

it.each([...PROCESSES, 'kafka'])('%s listens on 127.0.0.1 only', (name) => {
  const pid = name === 'kafka' ? stack().kafka.pid() : stack().startedPids().get(name);
  expect(pid).toBeDefined();
  const sockets = listeningSockets(pid!);
  // every process of the stack serves something; none listening means the check saw nothing
  expect(sockets.length).toBeGreaterThan(0);
  expect(sockets.filter((s) => s.address !== '127.0.0.1')).toEqual([]);
});
