import { type ChatMessage } from './message';

export type PostResult =
  | { ok: true; status: number }
  | { ok: false; reason: 'timeout' | 'unreachable' | 'rejected'; status?: number };

/**
 * POSTs the message as JSON to the chat webhook, giving up after `timeoutMs`. Only a 2xx
 * counts; redirects are not followed (a moved webhook is a configuration error to see,
 * not to chase). Never throws.
 */
export async function postToChat(
  targetUrl: string,
  message: ChatMessage,
  timeoutMs: number,
): Promise<PostResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(message),
      redirect: 'manual',
      signal,
    });
    // Drain the answer so the connection can be reused; its content does not matter.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300)
      return { ok: true, status: response.status };
    return { ok: false, reason: 'rejected', status: response.status };
  } catch {
    // Ask the signal rather than the error: the abort error is a DOMException whose class
    // differs between realms (e.g. under jest), so instanceof checks are unreliable.
    return { ok: false, reason: signal.aborted ? 'timeout' : 'unreachable' };
  }
}
