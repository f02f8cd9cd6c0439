import { ReceiverNoticeKind, type ReceiverNotice } from '@brand/proto/webhooks/v1';
import { createLogger } from '@brand/shared/logger';
import type { Mail, MailSender } from '../mail/mailSender';
import { receiverNoticeTurn, type NoticeSource } from './receiverNoticeTurn';

const log = createLogger({ service: 'test', level: 'silent' });

const notice = (id: string, brandId = 'br_one'): ReceiverNotice => ({
  id,
  brand_id: brandId,
  receiver_id: 'rcv_orders',
  receiver_label: 'Order system',
  receiver_url: 'https://hooks.brand.test/orders',
  disabled_at: '2026-11-23T14:02:00.000Z',
  failing_since: '2026-11-18T09:00:00.000Z',
  reason: 'no 2xx for 5 days',
  last_error: '503 from the receiver',
  kind: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_DISABLED,
  failures: 212,
  created_at: '2026-11-23T14:02:00.000Z',
});

/** The webhooks service's notices (leased until acknowledged) and records' owners, in memory. */
function fakeSource(waiting: ReceiverNotice[], owners: Record<string, string[]>) {
  const acked: string[] = [];
  const source: NoticeSource = {
    claim: (limit) => Promise.resolve(waiting.filter((n) => !acked.includes(n.id)).slice(0, limit)),
    ack: (id) => {
      acked.push(id);
      return Promise.resolve();
    },
    owners: (brandId) =>
      Promise.resolve({ brandName: 'Demo Brand', emails: owners[brandId] ?? [] }),
  };
  return { source, acked };
}

/** An SMTP error as nodemailer reports it. */
const smtpError = (responseCode: number) =>
  Object.assign(new Error(`${responseCode} refused`), { responseCode });

/**
 * An SMTP server that accepts every mail but those to the addresses in `refusing` (451, try
 * later) and in `unknown` (550, no such mailbox).
 */
function fakeSender(refusing = new Set<string>(), unknown = new Set<string>()) {
  const sent: Mail[] = [];
  const sender: MailSender = {
    send: (mail) =>
      refusing.has(mail.to)
        ? Promise.reject(smtpError(451))
        : unknown.has(mail.to)
          ? Promise.reject(smtpError(550))
          : (sent.push(mail), Promise.resolve()),
    close: () => undefined,
  };
  return { sender, sent };
}

const mailer = (source: NoticeSource, sender: MailSender) =>
  receiverNoticeTurn({
    source,
    sender,
    publicOrigin: 'https://console.example.com',
    log,
    leaseMs: 60_000,
    batchSize: 20,
  });

describe('the receiver notice mailer', () => {
  it('mails every owner once per notice, then acknowledges it', async () => {
    const { source, acked } = fakeSource([notice('n1'), notice('n2', 'br_two')], {
      br_one: ['a@one.test', 'b@one.test'],
      br_two: ['c@two.test'],
    });
    const { sender, sent } = fakeSender();
    const turn = mailer(source, sender);
    expect(await turn(() => false)).toBe(2);
    expect(sent.map((m) => m.to)).toEqual(['a@one.test', 'b@one.test', 'c@two.test']);
    expect(acked).toEqual(['n1', 'n2']);
    expect(await turn(() => false)).toBe(0);
    expect(sent).toHaveLength(3);
  });

  it('says which receiver, since when, why, the last error, and links to its page', async () => {
    const { source } = fakeSource([notice('n1')], { br_one: ['a@one.test'] });
    const { sender, sent } = fakeSender();
    await mailer(source, sender)(() => false);
    const [mail] = sent;
    expect(mail!.subject).toBe('Receiver “Order system” was disabled: it gets no deliveries');
    expect(mail!.text).toContain('disabled the receiver “Order system” of Demo Brand');
    expect(mail!.text).toContain('Disabled: 2026-11-23 14:02 UTC');
    expect(mail!.text).toContain('Failing since: 2026-11-18 09:00 UTC');
    expect(mail!.text).toContain('Why: no 2xx for 5 days');
    expect(mail!.text).toContain('Last error: 503 from the receiver');
    expect(mail!.text).toContain('https://console.example.com/brands/br_one/receivers/rcv_orders');
  });

  it('keeps a label on one line in the subject (no header injection)', async () => {
    const hostile = { ...notice('n1'), receiver_label: 'x\r\nBcc: victim@evil.test' };
    const { source } = fakeSource([hostile], { br_one: ['a@one.test'] });
    const { sender, sent } = fakeSender();
    await mailer(source, sender)(() => false);
    expect(sent[0]!.subject).toBe(
      'Receiver “x Bcc: victim@evil.test” was disabled: it gets no deliveries',
    );
  });

  it('leaves a notice unacknowledged when a mail fails, and then mails only the owners not reached', async () => {
    const { source, acked } = fakeSource([notice('n1')], { br_one: ['a@one.test', 'b@one.test'] });
    const refusing = new Set(['b@one.test']);
    const { sender, sent } = fakeSender(refusing);
    const turn = mailer(source, sender);
    await turn(() => false);
    expect(acked).toEqual([]);
    expect(sent.map((m) => m.to)).toEqual(['a@one.test']);
    refusing.clear();
    await turn(() => false);
    expect(sent.map((m) => m.to)).toEqual(['a@one.test', 'b@one.test']);
    expect(acked).toEqual(['n1']);
  });

  it('counts an address the server refuses for good as reached, so the others are not held back', async () => {
    const { source, acked } = fakeSource([notice('n1')], {
      br_one: ['gone@one.test', 'b@one.test'],
    });
    const { sender, sent } = fakeSender(new Set(), new Set(['gone@one.test']));
    await mailer(source, sender)(() => false);
    expect(sent.map((m) => m.to)).toEqual(['b@one.test']);
    expect(acked).toEqual(['n1']);
  });

  it('stops between notices at shutdown, leaving the rest leased', async () => {
    const { source, acked } = fakeSource([notice('n1'), notice('n2')], { br_one: ['a@one.test'] });
    const { sender } = fakeSender();
    let stopping = false;
    const turn = mailer(source, {
      send: async (m) => {
        await sender.send(m);
        stopping = true;
      },
      close: () => undefined,
    });
    expect(await turn(() => stopping)).toBe(2);
    expect(acked).toEqual(['n1']);
  });

  it('acknowledges a notice of a brand with no owner left (nobody to tell)', async () => {
    const { source, acked } = fakeSource([notice('n1', 'br_gone')], {});
    const { sender, sent } = fakeSender();
    await mailer(source, sender)(() => false);
    expect(sent).toEqual([]);
    expect(acked).toEqual(['n1']);
  });
});
