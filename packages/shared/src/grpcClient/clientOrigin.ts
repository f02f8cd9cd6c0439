import { AsyncLocalStorage } from 'node:async_hooks';
import type { Metadata } from '@grpc/grpc-js';

/**
 * The address and User-Agent of the browser (or CLI) a call is made for, as the process that
 * met it saw them. The console sends them with every call it makes for a request; the
 * services keep them for the call's duration, and every activity row written meanwhile carries
 * them (issue 42: "every row carries the IP address and user agent").
 */
export interface ClientOrigin {
  clientAddress: string;
  userAgent: string;
}

export const CLIENT_ADDRESS_METADATA = 'x-client-address';
export const CLIENT_USER_AGENT_METADATA = 'x-client-user-agent';

const NO_ORIGIN: ClientOrigin = { clientAddress: '', userAgent: '' };
const storage = new AsyncLocalStorage<ClientOrigin>();

/** Control characters are dropped: the values are shown on pages, in exports and in logs. */
const withoutControls = (s: string): string =>
  [...s].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');

/**
 * Bounded: a User-Agent header can be any length and is cut rather than refused (an odd
 * browser must not fail a request); an address longer than any IPv6 text is cut too.
 */
function boundedOrigin(raw: { clientAddress?: unknown; userAgent?: unknown }): ClientOrigin {
  const text = (v: unknown) => (typeof v === 'string' ? withoutControls(v) : '');
  return {
    clientAddress: text(raw.clientAddress).slice(0, 64),
    userAgent: text(raw.userAgent).slice(0, 512),
  };
}

/**
 * Runs `fn` on behalf of a client: currentClientOrigin() answers `origin` inside it, and in
 * everything it starts, for as long as the process lives (the console's requests: `next()`
 * returns before the request is served).
 */
export function withClientOrigin<T>(origin: ClientOrigin, fn: () => T): T {
  return storage.run(boundedOrigin(origin), fn);
}

/** Calls of withCallOrigin running now: the storage is on while any is. */
let callsWithStorage = 0;

/**
 * Runs one call on behalf of a client, as withClientOrigin, until the promise `fn` returns
 * settles; the storage is switched off again when no call of it runs. In Node 20 an
 * AsyncLocalStorage, once run, turns on async hooks for the whole process: every promise,
 * timer and socket write pays to carry the store (a promise-bound loop took 2-4x the CPU, and
 * the webhooks service's delivery pipeline paid it for good after one admin call). Most calls
 * carry no origin (the gateway's, for API keys), and one that starts while no call has the
 * storage on runs without it: currentClientOrigin() answers the empty origin there as it
 * would inside. Work a call leaves running after its promise settled is not the call's and
 * reads no origin once the storage is off (the services' background writers already did not).
 * For servers of calls (grpc/unary.ts); not beside withClientOrigin in one process, whose
 * stores the switch would end (the console, which serves no calls, uses that one).
 */
export async function withCallOrigin<T>(origin: ClientOrigin, fn: () => Promise<T>): Promise<T> {
  const kept = boundedOrigin(origin);
  if (callsWithStorage === 0 && kept.clientAddress === '' && kept.userAgent === '') return fn();
  callsWithStorage++;
  try {
    return await storage.run(kept, fn);
  } finally {
    if (--callsWithStorage === 0) storage.disable();
  }
}

/** The origin of the request or call being served, or empty values outside one. */
export function currentClientOrigin(): ClientOrigin {
  return storage.getStore() ?? NO_ORIGIN;
}

/** Adds the current origin to an outgoing call's metadata (nothing when there is none). */
export function setOriginMetadata(metadata: Metadata, origin = currentClientOrigin()): void {
  if (origin.clientAddress) metadata.set(CLIENT_ADDRESS_METADATA, origin.clientAddress);
  if (origin.userAgent) metadata.set(CLIENT_USER_AGENT_METADATA, origin.userAgent);
}

/** The origin an incoming call carries (bounded), empty when it carries none. */
export function originOfMetadata(metadata: Metadata): ClientOrigin {
  return boundedOrigin({
    clientAddress: metadata.get(CLIENT_ADDRESS_METADATA)[0],
    userAgent: metadata.get(CLIENT_USER_AGENT_METADATA)[0],
  });
}

/**
 * The address part of a grpc-js peer ("ipv4:10.0.0.7:52344", "ipv6:[::1]:52344",
 * "10.0.0.7:52344"), or '' for anything else (a unix socket).
 */
export function peerAddress(peer: string): string {
  const m = /^(?:ipv[46]:)?\[?([0-9A-Fa-f:.]+?)\]?:\d+$/.exec(peer);
  return m?.[1] ?? '';
}
