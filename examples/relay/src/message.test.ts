import { sampleEvent } from '@brand/example-receiver';
import { toChatMessage } from './message';

const DASHBOARD = 'https://app.example.com';

describe('toChatMessage', () => {
  it('carries the event name, the record id and a dashboard link', () => {
    const message = toChatMessage(sampleEvent(), DASHBOARD);
    expect(message).toEqual({
      text: 'Submission approved (submission.approved): sub_4Tn8Qw2Er6Ty\nhttps://app.example.com/submissions/sub_4Tn8Qw2Er6Ty',
    });
  });

  it.each([
    ['payout.paid', 'pay_1', 'https://app.example.com/payouts/pay_1'],
    ['campaign.settled', 'cmp_2', 'https://app.example.com/campaigns/cmp_2'],
    ['submission.rejected', 'sub_3', 'https://app.example.com/submissions/sub_3'],
  ] as const)('links a %s event to its section', (type, id, link) => {
    const text = toChatMessage(sampleEvent({ type, object: { id } }), `${DASHBOARD}/`).text;
    expect(text).toContain(type);
    expect(text.endsWith(`\n${link}`)).toBe(true);
  });

  it('leaves out creator details, amounts, payment details and secrets present in the record', () => {
    const event = sampleEvent({
      type: 'payout.paid',
      object: {
        resource: 'payouts',
        id: 'pay_7',
        creator_handle: '@jane.creates',
        creator_email: 'jane@example.com',
        amount: 125_000,
        amount_display: '$1,250.00',
        currency: 'USD',
        iban: 'DE89370400440532013000',
        secret: 'whsec_leak',
      },
    });
    const { text } = toChatMessage(event, DASHBOARD);
    for (const needle of ['jane', '@', '125', '1,250', 'USD', 'DE89', 'whsec', 'br_']) {
      expect(text).not.toContain(needle);
    }
  });

  it('marks Test-action deliveries', () => {
    expect(toChatMessage(sampleEvent({ test: true }), DASHBOARD).text).toMatch(/^\[test\] /);
  });

  it('escapes an id that would otherwise break out of the link or into chat markup', () => {
    const { text } = toChatMessage(sampleEvent({ object: { id: 'sub_1|<!channel>' } }), DASHBOARD);
    expect(text).not.toMatch(/[<>|]/);
    expect(text).toContain('/submissions/sub_1%7C%3C!channel%3E');
  });
});
