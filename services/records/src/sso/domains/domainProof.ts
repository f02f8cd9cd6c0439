import { randomBase62 } from '@brand/shared/ids';

/**
 * The DNS proof of a brand's control of a domain (issue 42): a TXT record under a name only the
 * domain's owner can publish, holding a value only this brand was given. The label starts with
 * an underscore, like other verification records (_acme-challenge, _dmarc), so it never clashes
 * with a host name.
 */
const RECORD_LABEL = '_brand-records-verification';
const VALUE_PREFIX = 'brand-records-verification=';

/** A new token: 32 base62 characters (about 190 bits), one per brand and domain. */
export const newDomainToken = (): string => randomBase62(32);

/** Where the brand publishes its proof for `domain`. */
export const proofRecordName = (domain: string): string => `${RECORD_LABEL}.${domain}`;

/** What the record holds. */
export const proofRecordValue = (token: string): string => `${VALUE_PREFIX}${token}`;
