import { connectionProblemOf } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';

/** One consumer-group member as the supervisor sees it: started, told of, stopped. */
export interface GroupMember {
  /** Resolves once the member consumes; it then reports through the callbacks. */
  start(events: MemberEvents): Promise<void>;
  stop(): Promise<void>;
}

export interface MemberEvents {
  /** The member joined its group: it works again. */
  joined(): void;
  /** The member stopped for good (kafkajs will not restart it). */
  failed(err: unknown): void;
}

export interface SupervisorSettings {
  /** First wait before a new member; doubles per consecutive failure up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Consecutive failures (no join between them) after which the process gives up. */
  maxConsecutiveFailures: number;
}

const DEFAULT_SUPERVISOR_SETTINGS: SupervisorSettings = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxConsecutiveFailures: 10,
};

/**
 * Keeps one consumer-group member running in this process. kafkajs restarts a member itself
 * after most failures, but not after some it calls non-retriable: an offset commit refused
 * with "the coordinator is not aware of this member" (the member was dropped from the group
 * while one batch outlived its session) is the one met under load. Exiting then would take
 * the workers and the admin RPCs down with it, so a new member is made here instead, after a
 * capped backoff; nothing is lost, since offsets are committed only after the database has
 * the events. `onFatal` is called only when members keep failing without ever joining, and
 * never for a broker that refuses the credentials or the certificate (issue 43): exiting would
 * only restart into the same refusal, a crash loop; the process stays up, says the problem in
 * readiness, and tries again every maxDelayMs until the settings are fixed.
 */
export class MemberSupervisor {
  private current: GroupMember | undefined;
  /** A failed member not yet disconnected (its replacement waits for the backoff). */
  private failed: GroupMember | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly makeMember: () => GroupMember,
    private readonly log: Logger,
    private readonly onFatal: (err: unknown) => void,
    private readonly settings: SupervisorSettings = DEFAULT_SUPERVISOR_SETTINGS,
  ) {}

  /**
   * Starts the first member. One that cannot start (a broker unreachable, or refusing the
   * credentials) is replaced after a pause like any failed member: the service boots anyway.
   */
  /** Starts the first member; false when it failed (it is replaced after a pause). */
  async start(): Promise<boolean> {
    try {
      await this.startMember();
      return true;
    } catch (err) {
      const member = this.current;
      if (member) this.replace(member, err);
      return false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([this.current?.stop(), this.failed?.stop().catch(() => undefined)]);
  }

  private async startMember(): Promise<void> {
    const member = this.makeMember();
    this.current = member;
    await member.start({
      joined: () => {
        if (member === this.current) this.failures = 0;
      },
      failed: (err) => {
        if (member === this.current) this.replace(member, err);
      },
    });
  }

  private replace(failed: GroupMember, err: unknown): void {
    if (this.stopped) return;
    const refused = connectionProblemOf(err) !== undefined;
    this.failures = refused
      ? Math.min(this.failures + 1, this.settings.maxConsecutiveFailures)
      : this.failures + 1;
    if (this.failures > this.settings.maxConsecutiveFailures) {
      this.onFatal(err);
      return;
    }
    const delay = Math.min(
      this.settings.initialDelayMs * 2 ** (this.failures - 1),
      this.settings.maxDelayMs,
    );
    // a refusal is said once by the connection status; its stack would only repeat it
    this.log.error(
      { err: refused ? (err as Error).message : err, attempt: this.failures, delayMs: delay },
      'the Kafka consumer stopped; a new group member starts after a pause',
    );
    this.current = undefined;
    this.failed = failed;
    this.timer = setTimeout(() => void this.retry(failed), delay);
  }

  private async retry(failed: GroupMember): Promise<void> {
    // the failed member has left the group already; disconnecting frees its connections
    await failed.stop().catch(() => undefined);
    this.failed = undefined;
    if (this.stopped) return;
    try {
      await this.startMember();
      this.log.info('a new Kafka group member consumes business events');
    } catch (err) {
      const member = this.current;
      if (member) this.replace(member, err);
    }
  }
}
