import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JSON_RPC, jsonRpcError, type JsonRpcId } from './jsonRpc';
import { paramsProblem } from './paramsCheck';

/**
 * Runs validated JSON-RPC messages through an SDK Server over the SDK's in-memory
 * transport and returns the responses to the requests among them, in request order.
 * This is the whole "stateless Streamable HTTP" exchange: one HTTP POST in, one JSON
 * answer out, no session and no stream. A request the server has not answered within
 * `timeoutMs` gets an internal-error response rather than hanging the HTTP request.
 */
export async function exchange(
  server: Server,
  messages: JSONRPCMessage[],
  timeoutMs: number,
): Promise<JSONRPCMessage[]> {
  const requestIds = messages.flatMap((m) => ('method' in m && 'id' in m ? [m.id] : []));
  const answers = new Map<JsonRpcId, JSONRPCMessage>();
  const accepted: JSONRPCMessage[] = [];
  for (const m of messages) {
    const problem = paramsProblem(m);
    if (problem === undefined) accepted.push(m);
    else if ('method' in m && 'id' in m) {
      const id = m.id;
      answers.set(
        id,
        jsonRpcError(id, JSON_RPC.invalidParams, `Invalid params: ${problem}`) as JSONRPCMessage,
      );
    }
  }
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
        JSON_RPC.internalError,
        'The request was not answered in time.',
      ) as JSONRPCMessage),
  );
}
