import type { MemberMail } from '@brand/proto/access/v1/invitations';
import { ROLES } from '@brand/shared/enums';
import { formatTime } from '../views/format';
import type { Mail } from './mailSender';

/** What a role lets a member do, in the invitation's words. */
const ROLE_WORDS: Record<string, string> = {
  owner: 'an owner (keys, receivers, plans and members)',
  admin: 'an admin (sees keys, receivers, deliveries and plans; changes nothing)',
  member: 'a member (sees keys, receivers, deliveries and plans; changes nothing)',
};

/**
 * The mail records asked for (MemberInvitationService.ClaimMemberMails), in plain text: the
 * invitation to the invited address, or a notice to one of a brand's owners. Undefined for a
 * kind this console does not know (a newer records): it is left to a console that does.
 */
export function memberMailOf(m: MemberMail, publicOrigin: string): Omit<Mail, 'to'> | undefined {
  const brandPage = `${publicOrigin}/brands/${m.brand_id}`;
  switch (m.kind) {
    case 'invitation': {
      const inv = m.invitation;
      if (!inv || m.token === '') return undefined;
      const role = ROLES.fromProto(inv.role) ?? 'member';
      return {
        subject: `${inv.invited_by} invited you to ${m.brand_name} in the Developers area`,
        text: [
          `${inv.invited_by} invited you to join ${m.brand_name} in the Developers area at`,
          `${publicOrigin}, as ${ROLE_WORDS[role] ?? role}.`,
          '',
          'Nothing changes for you until you accept. To accept or decline, open:',
          '',
          `${publicOrigin}/invite/${m.token}`,
          '',
          `The invitation expires ${formatTime(inv.expires_at)}. If you already use the Developers area,`,
          `you can also answer it there, under Invitations (${publicOrigin}/invitations).`,
          '',
          'If you do not know this brand, ignore this message or decline: you will not be added.',
        ].join('\n'),
      };
    }
    case 'sso_provider_set':
      return {
        subject: `${m.brand_name}: single sign-on now uses ${m.issuer}`,
        text: [
          `${m.set_by} set the identity provider of ${m.brand_name}’s single sign-on to`,
          `${m.issuer}.`,
          '',
          'Single sign-on cannot be required for the brand until a day after this change, so every',
          'owner has time to check it. If you did not expect it, review the brand’s Single sign-on',
          `and Activity pages now (${brandPage}/sso), and remove the connection if it is not yours.`,
        ].join('\n'),
      };
    case 'passkey_added': {
      const how =
        m.session_method === 'link'
          ? 'from a session opened by an emailed sign-in link'
          : 'from a session opened with a passkey';
      return {
        subject: `A passkey was added to ${m.email} in the Developers area`,
        text: [
          `A passkey named “${m.passkey_name}” was added to ${m.email} in the Developers area,`,
          `${how}. It signs in to every brand you belong to.`,
          '',
          'If you added it, there is nothing to do. If you did not, someone can read your mail or',
          `has your device: secure your mailbox first, then end every session at ${publicOrigin}/sessions`,
          'and ask the operator of this service to remove your passkeys; you can then add your own',
          'again. The passkey and who added it are in the activity of each of your brands.',
        ].join('\n'),
      };
    }
    case 'domain_proof_missing':
      return {
        subject: `${m.brand_name}: the DNS record proving ${m.domain} is missing`,
        text: [
          `The scheduled check no longer finds the TXT record that proves ${m.brand_name} controls`,
          `${m.domain}. Unless it is found again by ${formatTime(m.fails_at)}, the domain stops being`,
          'verified and nobody at it can sign in with single sign-on.',
          '',
          `Publish the record again (its name and value are on ${brandPage}/sso).`,
        ].join('\n'),
      };
    case 'domain_proof_failed':
      return {
        subject: `${m.brand_name}: ${m.domain} is no longer verified for single sign-on`,
        text: [
          `The TXT record proving ${m.brand_name} controls ${m.domain} stayed missing, so the`,
          'domain is no longer verified: nobody at it signs in with single sign-on until it is',
          `proven again. Publish the record and press Verify now on ${brandPage}/sso.`,
        ].join('\n'),
      };
    default:
      return undefined;
  }
}
