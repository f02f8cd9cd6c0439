import { Resolver } from 'node:dns/promises';
import { proofRecordName, proofRecordValue } from './domainProof';

/** The resolver records checks domain proofs with (SSO_DNS_SERVERS, SSO_DNS_TIMEOUT_MS). */
export interface DnsSettings {
  /** "ip" or "ip:port" ("[v6]:port"); empty: the system's resolvers (/etc/resolv.conf). */
  servers: readonly string[];
  /** Each query gives up after this long; two tries. */
  timeoutMs: number;
}

/**
 * What one check found: the proof, or why not in words an owner can act on. `unanswered`: the
 * DNS did not answer at all, which says nothing about the record (the scheduled re-check does
 * not count it as missing).
 */
type ProofLookup = { found: true } | { found: false; problem: string; unanswered?: boolean };

/** Finds a brand's proof for a domain; injectable so a test may count or fail lookups. */
export type ProofFinder = (domain: string, token: string) => Promise<ProofLookup>;

/** DNS answers that mean "no such record", as opposed to a resolver that did not answer. */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Looks the proof up through the operator's resolvers, as node:dns's Resolver asks them (UDP,
 * then TCP for a truncated answer). A TXT record's strings are joined, as RFC 7208 reads them,
 * and a record matches only exactly. Never throws: a resolver that fails or times out is a
 * problem to show ("try again"), like a missing record.
 */
export function dnsProofFinder(settings: DnsSettings): ProofFinder {
  const resolver = new Resolver({ timeout: settings.timeoutMs, tries: 2 });
  if (settings.servers.length > 0) resolver.setServers([...settings.servers]);
  return async (domain, token) => {
    const name = proofRecordName(domain);
    const expected = proofRecordValue(token);
    let records: string[][];
    try {
      records = await resolver.resolveTxt(name);
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      return {
        found: false,
        unanswered: !NO_RECORD.has(code),
        problem: NO_RECORD.has(code)
          ? `No TXT record at ${name} yet (DNS changes can take a while to appear).`
          : `The DNS did not answer for ${name} (${code || 'error'}); try again in a minute.`,
      };
    }
    const values = records.map((chunks) => chunks.join(''));
    if (values.includes(expected)) return { found: true };
    return {
      found: false,
      problem: `The TXT records at ${name} do not include this brand's value (${values.length} found).`,
    };
  };
}
