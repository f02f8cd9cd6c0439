import { Socket } from 'node:net';
import type { Logger } from '../logger';

/** Whether any broker of a Kafka cluster accepts connections, as last probed. */
export interface KafkaReachability {
  /** True until a probe finds no broker answering; then false until one answers again. */
  reachable(): boolean;
  stop(): void;
}

/** "host:port" or "[v6]:port" → its parts. */
function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return {
    host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'),
    port: Number(address.slice(at + 1)),
  };
}

/**
 * True when a TCP connection to `address` opens within `timeoutMs`. A timeout gives the
 * connection the rest of the event loop's turn before it counts: after a stall of the loop (a
 * loaded start, a long GC) the timeout's timer runs before the I/O that says the connection opened
 * meanwhile, which alone read as a broker that is gone.
 */
export function canConnect(address: string, timeoutMs: number): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    // setImmediate runs after this turn's I/O, where an opened connection says so first
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/**
 * Probes the brokers now and every `intervalMs` with a plain TCP connect (cheap, and exactly
 * what fails when a broker is gone: ECONNREFUSED). Logs each change loudly, the first
 * unreachable result included, and reports it to `onChange`. Issue 35: a broker that vanished
 * left the webhooks service logging ECONNREFUSED while everything said ready.
 *
 * Unreachable takes `failuresInARow` probes (2 unless told) that find no broker; one that finds
 * one is enough to be reachable again. A single probe can fail on a starved event loop (its
 * timer fires before the connect's callback runs), and readiness must not take a pod out of
 * its Service for that: it did so once under a loaded test run. A broker that is really gone
 * is seen one interval later. Probes never overlap: a slow one delays the next.
 */
export function watchKafkaReachability(opts: {
  brokers: readonly string[];
  intervalMs: number;
  log: Logger;
  timeoutMs?: number;
  failuresInARow?: number;
  onChange?: (reachable: boolean) => void;
  /** The probe of one broker; `canConnect` unless a test scripts it. */
  connect?: (address: string, timeoutMs: number) => Promise<boolean>;
}): KafkaReachability {
  const connect = opts.connect ?? canConnect;
  const needed = opts.failuresInARow ?? 2;
  let reachable = true;
  let failures = 0;
  let probing = false;
  let stopped = false;
  const probe = async (): Promise<void> => {
    if (probing) return;
    probing = true;
    const answers = await Promise.all(
      opts.brokers.map((b) => connect(b, opts.timeoutMs ?? 1_000)),
    ).finally(() => (probing = false));
    failures = answers.some(Boolean) ? 0 : failures + 1;
    const now = failures < needed;
    if (stopped || now === reachable) return;
    reachable = now;
    if (now) opts.log.info({ brokers: opts.brokers, kafka: 'reachable' }, 'Kafka reachable again');
    else
      opts.log.error(
        { brokers: opts.brokers, kafka: 'unreachable', probes: failures },
        'Kafka unreachable: no broker accepts connections; events wait in the outbox until one does',
      );
    opts.onChange?.(now);
  };
  void probe();
  const timer = setInterval(() => void probe(), opts.intervalMs);
  timer.unref();
  return {
    reachable: () => reachable,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
