import { idPrefix, newId, randomBase62, type IdKind } from './index';

const KINDS: Record<IdKind, string> = {
  brand: 'br_',
  member: 'mem_',
  apiKey: 'key_',
  campaign: 'cmp_',
  submission: 'sub_',
  payout: 'po_',
  deposit: 'dep_',
  conversion: 'cnv_',
  link: 'lnk_',
  request: 'req_',
  campaignPlan: 'pln_',
  event: 'evt_',
  receiver: 'rcv_',
  delivery: 'dlv_',
  activity: 'act_',
  consoleSession: 'ses_',
  signInRequest: 'sir_',
  signInClaim: 'sic_',
  receiverNotice: 'rcn_',
  passkey: 'pk_',
  invitation: 'inv_',
  memberMail: 'mml_',
  scimToken: 'sct_',
  scimUser: 'scu_',
  scimGroup: 'scg_',
  scimRequest: 'scr_',
  auditStream: 'aus_',
};

describe('newId', () => {
  it.each(Object.entries(KINDS))(
    '%s ids start with %s and carry 20 base62 characters',
    (kind, prefix) => {
      const id = newId(kind as IdKind);
      expect(idPrefix(kind as IdKind)).toBe(prefix);
      expect(id.startsWith(prefix)).toBe(true);
      expect(id.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{20}$/);
    },
  );

  it('gives every kind its own prefix', () => {
    const prefixes = Object.keys(KINDS).map((k) => idPrefix(k as IdKind));
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it('does not repeat over 10,000 ids', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('submission')));
    expect(ids.size).toBe(10_000);
  });
});

describe('randomBase62', () => {
  it.each([0, 1, 20, 40, 333])('returns exactly %i characters', (n) => {
    expect(randomBase62(n)).toHaveLength(n);
  });

  it('uses all 62 characters with no strong bias', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62 * 1000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe(
      '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
    );
    // 1000 expected per character; a modulo bias of 256 % 62 would push some toward 1250
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(800);
      expect(n).toBeLessThan(1200);
    }
  });
});
