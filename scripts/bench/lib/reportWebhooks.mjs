// The webhook comparison's rows of the table (issues 46, 64): S6, S6f and S6n through ours and
// the peers (W0 on graphile-worker, W1 on BullMQ; or B, another build of ours) in the same
// rounds. Every target is on the median of per-round ratios to the better peer of that round
// (the higher deliveries/s and knee, the lower CPU and p99), so a peer that is strong in one
// round and weak in another cannot flatter ours; each peer's own ratio follows as a row of its
// own, without a target. Issue 36's absolute rows (ours alone) come after.
import { TARGETS, round } from './settings.mjs';
import { PEERS } from './webhookRig.mjs';

const median = (values) => {
  const v = values.filter((x) => x !== undefined && x !== null && !Number.isNaN(x));
  if (v.length === 0) return Number.NaN;
  const sorted = [...v].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const range = (values) => {
  const v = values.filter(Number.isFinite).map((x) => round(x, 2));
  return v.length > 1 ? `${Math.min(...v)}-${Math.max(...v)}` : String(v[0] ?? '-');
};
/** The sender and its stores: its PostgreSQL backends, and W1's queue Redis. */
const senderCpu = (c) => c.sender + c['postgres (sender)'] + (c['redis (sender)'] ?? 0);
const allCpu = (c) => Object.values(c).reduce((a, b) => a + b, 0);
const finite = (x) => typeof x === 'number' && !Number.isNaN(x);

/**
 * Round i's better peer value by `better` ('higher' or 'lower'), and which peer it was;
 * undefined when no peer has a figure in that round.
 */
function bestPeer(rounds, peers, i, pick, better) {
  let best;
  for (const peer of peers) {
    const result = rounds[peer]?.[i];
    const value = result === undefined ? undefined : pick(result);
    if (!finite(value)) continue;
    if (!best || (better === 'higher' ? value > best.value : value < best.value))
      best = { value, peer };
  }
  return best;
}

/**
 * One comparison row against `against`: a peer's name, or 'better' (round by round the better
 * of the peers that ran). Ours' median, the peer's median, the median of per-round ratios, with
 * each round's ratio, peer and load in the note.
 */
function pairRow({ add }, metric, rounds, pick, { against, better, verdict, note = '' }) {
  const peers = PEERS.filter((p) => rounds[p]?.length > 0);
  const ours = rounds.ours.map(pick);
  const theirs = ours.map((_, i) =>
    against === 'better'
      ? bestPeer(rounds, peers, i, pick, better)
      : bestPeer(rounds, [against], i, pick, better),
  );
  const ratios = ours.map((x, i) => (theirs[i] === undefined ? Number.NaN : x / theirs[i].value));
  const ratio = median(ratios);
  const byRound = ratios.map((x, i) =>
    against === 'better' && theirs[i] ? `${round(x, 2)} (${theirs[i].peer})` : round(x, 2),
  );
  const loads = rounds.ours.map((o, i) => {
    const others = (against === 'better' ? peers : [against]).map(
      (p) => rounds[p]?.[i]?.load[0] ?? '-',
    );
    return [o.load[0], ...others].join('/');
  });
  add(
    metric,
    median(ours),
    median(theirs.map((t) => t?.value)),
    ratio,
    verdict?.(ratio),
    `${note}(vs ${against === 'better' ? `the better of ${peers.join(', ')}` : against}; by round ${byRound.join(' ')}; load ${loads.join(' ')})`,
  );
}

/** A target row against the better peer, then the same figure against each peer alone. */
function comparedRows(helpers, metric, rounds, pick, better, verdict) {
  const peers = PEERS.filter((p) => rounds[p]?.length > 0);
  if (peers.length > 1)
    pairRow(helpers, metric, rounds, pick, { against: 'better', better, verdict });
  for (const peer of peers)
    pairRow(helpers, `${metric}, vs ${peer}`, rounds, pick, {
      against: peer,
      better,
      verdict: peers.length === 1 ? verdict : undefined,
    });
}

/** The knee as a number to compare: the level where p99 passed 1 s, Infinity when none did. */
const kneeValue = (k) => (k.passedAt === null ? Number.POSITIVE_INFINITY : k.passedAt);

function kneeRow({ add }, s6, peers) {
  const knees = (system) => s6[system].map((x) => kneeValue(x.knee));
  // round by round, the better (higher) of the peers' knees
  const best = s6.ours.map((_, i) => Math.max(...peers.map((p) => knees(p)[i] ?? Number.NaN)));
  const [ours, theirs] = [median(knees('ours')), median(best)];
  const text = (k) => (Number.isFinite(k) ? `${k}/s` : 'not reached');
  // both past 1 s already at the ladder's lowest level (a machine far busier than the ladder
  // was made for), or neither past it at the top: where the knees are is not known
  const levels = [...s6.ours, ...peers.flatMap((p) => s6[p])].flatMap((x) =>
    x.levels.map((l) => l.rate),
  );
  const lowest = Math.min(...levels);
  const unknown =
    (ours === theirs && ours === lowest * 10) ||
    (!Number.isFinite(ours) && !Number.isFinite(theirs));
  add(
    'S6 knee: the paced level where p99 passes 1 s (deliveries/s)',
    ours,
    theirs,
    ours / theirs,
    { target: 'past the better peer', pass: unknown ? undefined : ours > theirs },
    `(ours ${knees('ours').map(text).join(' ')}; ${peers.map((p) => `${p} ${knees(p).map(text).join(' ')}`).join('; ')}, by round${unknown ? '; all at the end of the ladder: not measured here' : ''})`,
  );
}

/** S6, S6f and S6n through ours and the peers in the same rounds; issue 36's own rows. */
export function webhookRows(c, helpers) {
  const T = TARGETS;
  const { add, atLeast, atMost } = helpers;
  const s6 = c.s6;
  const peersOf = (rounds) => PEERS.filter((p) => rounds[p]?.length > 0);
  const paced = s6.ours[0].paced;
  const pacedLabel = `${paced.deliveriesRate}/s`;
  const s6Peers = peersOf(s6);
  if (s6Peers.length > 0) {
    comparedRows(
      helpers,
      'S6 deliveries/s out (burst, sustained)',
      s6,
      (x) => x.burst.deliveriesPerSecond,
      'higher',
      (x) => atLeast(x, T.s6VsW0),
    );
    comparedRows(
      helpers,
      'S6 CPU/delivery sender + its stores (ms)',
      s6,
      (x) => senderCpu(x.burst.cpuMsPerDelivery),
      'lower',
      (x) => atMost(x, T.s6CpuVsW0),
    );
    for (const peer of s6Peers)
      pairRow(
        helpers,
        `S6 CPU/delivery all processes (ms), vs ${peer}`,
        s6,
        (x) => allCpu(x.burst.cpuMsPerDelivery),
        { against: peer, better: 'lower' },
      );
    const processes = new Set(
      [...s6.ours, ...s6Peers.flatMap((p) => s6[p])].flatMap((x) =>
        Object.keys(x.burst.cpuMsPerDelivery),
      ),
    );
    for (const proc of processes)
      for (const peer of s6Peers)
        pairRow(
          helpers,
          `S6 CPU/delivery ${proc} (ms), vs ${peer}`,
          s6,
          (x) => x.burst.cpuMsPerDelivery[proc] ?? 0,
          { against: peer, better: 'lower' },
        );
    comparedRows(
      helpers,
      `S6 commit-to-2xx p99 at ${pacedLabel} (ms)`,
      s6,
      (x) => x.paced.p99,
      'lower',
      (x) => atMost(x, T.s6P99VsW0),
    );
    for (const peer of s6Peers)
      pairRow(
        helpers,
        `S6 commit-to-2xx p50 at ${pacedLabel} (ms), vs ${peer}`,
        s6,
        (x) => x.paced.p50,
        {
          against: peer,
          better: 'lower',
        },
      );
    const rates = [
      ...new Set(
        [...s6.ours, ...s6Peers.flatMap((p) => s6[p])].flatMap((x) => x.levels.map((l) => l.rate)),
      ),
    ]
      .filter((rate) => rate !== paced.rate)
      .sort((a, b) => a - b);
    for (const rate of rates)
      for (const peer of s6Peers)
        pairRow(
          helpers,
          `S6 commit-to-2xx p99 at ${rate * 10}/s (ms), vs ${peer}`,
          s6,
          (x) => x.levels.find((l) => l.rate === rate)?.p99,
          { against: peer, better: 'lower' },
        );
    kneeRow(helpers, s6, s6Peers);
  }
  // issue 36's own targets, on ours' median
  const ourBurst = median(s6.ours.map((x) => x.burst.deliveriesPerSecond));
  add(
    'S6 ours deliveries/s out (burst, sustained)',
    ourBurst,
    undefined,
    undefined,
    atLeast(ourBurst, T.s6DeliveriesPerSecond),
    `(median of ${s6.ours.length}: ${range(s6.ours.map((x) => x.burst.deliveriesPerSecond))})`,
  );
  const ourP99 = median(s6.ours.map((x) => x.paced.p99));
  add(
    `S6 ours commit-to-2xx p99 at ${pacedLabel} (ms)`,
    ourP99,
    undefined,
    undefined,
    atMost(ourP99, T.s6CommitTo2xxP99Ms),
    `(${range(s6.ours.map((x) => x.paced.p99))})`,
  );
  const ourCpu = median(s6.ours.map((x) => senderCpu(x.burst.cpuMsPerDelivery)));
  add(
    'S6 ours CPU/delivery webhooks + its PostgreSQL (ms)',
    ourCpu,
    undefined,
    undefined,
    atMost(ourCpu, T.s6CpuMsPerDelivery),
    `(${range(s6.ours.map((x) => senderCpu(x.burst.cpuMsPerDelivery)))})`,
  );

  const s6f = c.s6f;
  if (peersOf(s6f).length > 0) {
    comparedRows(
      helpers,
      `S6f deliveries/s out, one change to ${s6f.ours[0].receivers} receivers`,
      s6f,
      (x) => x.deliveriesPerSecond,
      'higher',
      (x) => atLeast(x, T.s6VsW0),
    );
    comparedRows(
      helpers,
      'S6f CPU/delivery sender + its stores (ms)',
      s6f,
      (x) => senderCpu(x.cpuMsPerDelivery),
      'lower',
      (x) => atMost(x, T.s6CpuVsW0),
    );
    for (const peer of peersOf(s6f))
      pairRow(
        helpers,
        `S6f CPU/delivery all processes (ms), vs ${peer}`,
        s6f,
        (x) => allCpu(x.cpuMsPerDelivery),
        { against: peer, better: 'lower' },
      );
  }
  const ourFanCpu = median(s6f.ours.map((x) => senderCpu(x.cpuMsPerDelivery)));
  add(
    'S6f ours CPU/delivery webhooks + its PostgreSQL (ms)',
    ourFanCpu,
    undefined,
    undefined,
    atMost(ourFanCpu, T.s6CpuMsPerDelivery),
    `(${range(s6f.ours.map((x) => senderCpu(x.cpuMsPerDelivery)))}; ${median(s6f.ours.map((x) => x.deliveriesPerSecond))}/s)`,
  );

  for (const n of c.s6n.ours) {
    helpers.vs(
      `S6n ours fast receiver p99 beside ${n.hangingReceivers} hanging (ms)`,
      n.beside.p99,
      n.alone.p99,
      (x) => atMost(x, T.s6nP99VsAlone),
      `(vs alone, ${n.queued} queued among them; p50 ${n.beside.p50} vs ${n.alone.p50}; load ${n.load[0]})`,
    );
    add(
      'S6n ours fast receiver p99 beside them, absolute (ms)',
      n.beside.p99,
      undefined,
      undefined,
      atMost(n.beside.p99, T.s6nP99Ms),
    );
  }
  for (const peer of PEERS.filter((p) => p !== 'B'))
    for (const n of c.s6n[peer] ?? [])
      add(
        `S6n ${peer} fast receiver p99 beside ${n.hangingReceivers} hanging (ms)`,
        n.beside.p99 ?? Number.POSITIVE_INFINITY,
        n.alone.p99,
        undefined,
        undefined,
        `(${n.beside.deliveries} of ${n.beside.expected} arrived within ${n.beside.waitedSeconds} s; alone p99 ${n.alone.p99} ms; load ${n.load[0]}; ours must hold where ${peer} cannot)`,
      );
}

/** S10 (issue 64): a day over many receivers against the same day over 10, round by round. */
export function manyReceiversRows(s10, { add, atMost }) {
  const T = TARGETS;
  const { few, many } = s10;
  const ratioRow = (metric, pick, limit, note = '') => {
    const ratios = many.map((m, i) => pick(m) / pick(few[i]));
    const ratio = median(ratios);
    add(
      metric,
      median(many.map(pick)),
      median(few.map(pick)),
      ratio,
      limit === undefined ? undefined : atMost(ratio, limit),
      `${note}(vs 10 receivers; by round ${ratios.map((x) => round(x, 2)).join(' ')})`,
    );
  };
  const label = `${many[0].receivers} receivers`;
  const cost = (x) => x.cpuMsPerDelivery.webhooks + x.cpuMsPerDelivery['postgres (webhooks)'];
  ratioRow(`S10 ${label}: CPU/delivery webhooks + its PostgreSQL (ms)`, cost, T.s10CostVsFew);
  ratioRow(
    `S10 ${label}: CPU/delivery its PostgreSQL alone (ms)`,
    (x) => x.cpuMsPerDelivery['postgres (webhooks)'],
  );
  ratioRow(
    `S10 ${label}: busy fast receivers' commit-to-2xx p99 (ms)`,
    (x) => x.fastReceiver.p99,
    T.s10P99VsFew,
    `p50 ${median(many.map((x) => x.fastReceiver.p50))} vs ${median(few.map((x) => x.fastReceiver.p50))} `,
  );
  ratioRow(`S10 ${label}: claims by scan per 1,000 deliveries`, (x) =>
    Math.max(0.001, (1000 * x.claims.scan) / x.deliveries),
  );
  ratioRow(`S10 ${label}: new TLS connections per 1,000 deliveries`, (x) =>
    Math.max(0.001, (1000 * x.handshakes.all) / x.deliveries),
  );
  ratioRow(`S10 ${label}: webhooks live heap after a full GC (MB)`, (x) => x.liveHeapMb);
  const rss = Math.max(...many.map((x) => x.rssPeakMb));
  add(
    `S10 ${label}: webhooks RSS peak over the day (MB)`,
    rss,
    Math.max(...few.map((x) => x.rssPeakMb)),
    undefined,
    atMost(rss, T.s10RssMb),
    '(the bound of every process; vs 10 receivers)',
  );
}
