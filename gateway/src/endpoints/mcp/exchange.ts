import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, type JsonRpcId } from './jsonRpc';
import { paramsProblem } from './paramsCheck';

/**
 * Answers a message without the SDK server, or undefined to leave it to the server (a
 * tools/call the SDK would refuse before our handler: looseArguments.ts).
 */
export type AnswerBeforeServer = (message: JSONRPCMessage) => Promise<JSONRPCMessage> | undefined;

/**
 * Runs validated JSON-RPC messages through an SDK Server over the SDK's in-memory
 * transport and returns the responses to the requests among them, in request order.
 * This is the whole "stateless Streamable HTTP" exchange: one HTTP POST in, one JSON
 * answer out, no session and no stream. A request the server has not answered within
 * `timeoutMs` gets an internal-error response rather than hanging the HTTP request.
 * `beforeServer` answers the requests the SDK server must not see.
 */
export async function exchange(
  server: Server,
  batch: JSONRPCMessage[],
  timeoutMs: number,
  beforeServer: AnswerBeforeServer = () => undefined,
): Promise<JSONRPCMessage[]> {
  const messages = withoutCancelled(batch);
  const requestIds = messages.flatMap((m) => ('method' in m && 'id' in m ? [m.id] : []));
  const answers = new Map<JsonRpcId, JSONRPCMessage>();
  const accepted: JSONRPCMessage[] = [];
  const answeredBefore: Array<Promise<void>> = [];
  for (const m of messages) {
    const problem = paramsProblem(m);
    const before = problem === undefined ? beforeServer(m) : undefined;
    if (problem === undefined && before === undefined) accepted.push(m);
    else if ('method' in m && 'id' in m) {
      const id = m.id;
      if (before) answeredBefore.push(before.then((answer) => void answers.set(id, answer)));
      else
        answers.set(
          id,
          jsonRpcError(id, ErrorCode.InvalidParams, `Invalid params: ${problem}`) as JSONRPCMessage,
        );
    }
  }
  // all in before the server's answers are counted: the last of those settles the exchange
  await Promise.all(answeredBefore);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();

  let timer: NodeJS.Timeout | undefined;
  const allAnswered = new Promise<void>((resolve) => {
    const settleIfDone = (): void => {
      if (answers.size === requestIds.length) resolve();
    };
    client.onmessage = (message) => {
      if ('id' in message && !('method' in message)) answers.set(message.id as JsonRpcId, message);
      settleIfDone();
    };
    settleIfDone();
    timer = setTimeout(resolve, timeoutMs);
  });

  await server.connect(serverSide);
  await client.start();
  for (const message of accepted) await client.send(message);
  await allAnswered;
  clearTimeout(timer);
  await client.close();

  return requestIds.map(
    (id) =>
      answers.get(id) ??
      (jsonRpcError(
        id,
        ErrorCode.InternalError,
        'The request was not answered in time.',
      ) as JSONRPCMessage),
  );
}

/**
 * Drops the requests that a notifications/cancelled in the same batch cancels. MCP says
 * the receiver of a cancellation does not answer the cancelled request; since the whole
 * batch arrives at once, the request is never started and simply gets no response
 * (waiting for one would hang the POST until the timeout).
 */
function withoutCancelled(messages: JSONRPCMessage[]): JSONRPCMessage[] {
  const cancelled = new Set<unknown>();
  for (const m of messages) {
    if ('method' in m && !('id' in m) && m.method === 'notifications/cancelled') {
      cancelled.add((m.params as { requestId?: unknown } | undefined)?.requestId);
    }
  }
  if (cancelled.size === 0) return messages;
  return messages.filter((m) => !('method' in m && 'id' in m && cancelled.has(m.id)));
}
