import { Role, type MemberInvitation } from '@brand/proto/access/v1';
import type { MemberMail } from '@brand/proto/access/v1/invitations';
import { memberMailOf } from './memberMail';

const origin = 'https://console.brand.test';
const invitation: MemberInvitation = {
  id: 'inv_1',
  brand_id: 'br_demo',
  email: 'dev@person.test',
  role: Role.ROLE_ADMIN,
  invited_by: 'owner@demo.test',
  created_at: '2026-11-27T09:00:00.000Z',
  expires_at: '2026-12-04T09:00:00.000Z',
  state: 'pending',
  brand_name: 'Demo Brand',
};
const mail = (over: Partial<MemberMail>): MemberMail => ({
  id: 'mml_1',
  kind: 'invitation',
  email: 'dev@person.test',
  brand_id: 'br_demo',
  brand_name: 'Demo Brand',
  invitation,
  token: 'x'.repeat(43),
  issuer: '',
  set_by: '',
  domain: '',
  fails_at: '',
  passkey_name: '',
  session_method: '',
  ...over,
});

describe('memberMailOf', () => {
  // A passkey opens every brand of the address; one added from an emailed link by whoever read
  // the member's mail went unseen (a review, 2026-11-30). The address is told, with what to do.
  it('tells the address a passkey was added, how, and what to do if it was not them', () => {
    const m = memberMailOf(
      mail({
        kind: 'passkey_added',
        brand_id: '',
        brand_name: '',
        passkey_name: 'YubiKey 5',
        session_method: 'link',
      }),
      origin,
    )!;
    expect(m.subject).toBe('A passkey was added to dev@person.test in the Developers area');
    expect(m.text).toContain('“YubiKey 5”');
    expect(m.text).toContain('from a session opened by an emailed sign-in link');
    expect(m.text).toContain(`${origin}/sessions`);
    expect(m.text).toContain('ask the operator of this service to remove your passkeys');
  });

  it('invites with the link, the role, who invited and until when, and says nothing changes until accepted', () => {
    const m = memberMailOf(mail({}), origin)!;
    expect(m.subject).toBe('owner@demo.test invited you to Demo Brand in the Developers area');
    expect(m.text).toContain(`${origin}/invite/${'x'.repeat(43)}`);
    expect(m.text).toContain('as an admin');
    expect(m.text).toContain('Nothing changes for you until you accept');
    expect(m.text).toContain('expires 2026-12-04 09:00 UTC');
    expect(m.text).toContain(`${origin}/invitations`);
  });

  it('tells an owner the provider changed, and that requiring it waits a day', () => {
    const m = memberMailOf(
      mail({ kind: 'sso_provider_set', issuer: 'https://idp.test', set_by: 'a@demo.test' }),
      origin,
    )!;
    expect(m.subject).toBe('Demo Brand: single sign-on now uses https://idp.test');
    expect(m.text).toContain('a@demo.test set the identity provider');
    expect(m.text).toContain('until a day after this change');
    expect(m.text).toContain(`${origin}/brands/br_demo/sso`);
  });

  it('tells an owner a domain’s record is missing and when it stops counting, then that it did', () => {
    const missing = memberMailOf(
      mail({ kind: 'domain_proof_missing', domain: 'demo.test', fails_at: '2026-11-30T09:00:00Z' }),
      origin,
    )!;
    expect(missing.text).toContain('no longer finds the TXT record');
    expect(missing.text).toContain('by 2026-11-30 09:00 UTC');
    const failed = memberMailOf(
      mail({ kind: 'domain_proof_failed', domain: 'demo.test' }),
      origin,
    )!;
    expect(failed.subject).toBe('Demo Brand: demo.test is no longer verified for single sign-on');
  });

  it('sends nothing for an invitation without its token or a kind it does not know', () => {
    expect(memberMailOf(mail({ token: '' }), origin)).toBeUndefined();
    expect(memberMailOf(mail({ kind: 'something_new' }), origin)).toBeUndefined();
  });
});
