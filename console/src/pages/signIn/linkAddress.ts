import { status } from '@grpc/grpc-js';
import type { ConsoleClients } from '../../clients/consoleClients';
import { ServiceCallError } from '../../clients/memberCaller';

/**
 * What the confirmation page of a sign-in link can say about it: the address it signs in
 * (`email`), nothing (`unknown`: records predates DescribeSignInLink, as during a rolling
 * upgrade where the console is rolled first; the page then asks for the button without
 * naming the address, as it did before, rather than failing), or that the link is spent,
 * expired or unknown (`invalid`).
 */
export type LinkAddress =
  { kind: 'email'; email: string } | { kind: 'unknown' } | { kind: 'invalid' };

export async function linkAddress(
  sessions: ConsoleClients['sessions'],
  token: string,
): Promise<LinkAddress> {
  try {
    const { email } = await sessions('describeSignInLink', { token });
    return { kind: 'email', email };
  } catch (err) {
    if (!(err instanceof ServiceCallError)) throw err;
    if (err.grpcStatus === status.UNAUTHENTICATED) return { kind: 'invalid' };
    if (err.grpcStatus === status.UNIMPLEMENTED) return { kind: 'unknown' };
    throw err;
  }
}
