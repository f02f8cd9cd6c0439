import { z } from 'zod';

/**
 * JSON-RPC's implementation-defined server error (-32000 to -32099 are reserved for them):
 * authentication, origin, rate-limit and transport refusals, with the REST code in
 * error.data.code. The protocol codes come from the SDK's ErrorCode.
 */
export const SERVER_ERROR = -32000;

const id = z.union([z.string(), z.number().int()]);

/** A request (with id) or notification (without). */
export const JsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: id.optional(),
    method: z.string().min(1),
    params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  })
  .meta({
    id: 'JsonRpcRequest',
    description: 'A JSON-RPC 2.0 request (with id) or notification (without id).',
  });

/** A response the client sends back to a server request; we never send any, so they are ignored. */
export const JsonRpcClientResponse = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id, result: z.unknown().refine((v) => v !== undefined) }),
  z.object({
    jsonrpc: z.literal('2.0'),
    id: id.nullable(),
    error: z.object({ code: z.number(), message: z.string() }).loose(),
  }),
]);

export const JsonRpcErrorObject = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z
    .object({ code: z.string().optional(), request_id: z.string().optional() })
    .catchall(z.unknown())
    .optional()
    .meta({
      description: 'For server errors: the same stable code as the REST API, and the request id.',
    }),
});

export const JsonRpcResponse = z
  .union([
    z.object({ jsonrpc: z.literal('2.0'), id, result: z.record(z.string(), z.unknown()) }),
    z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: JsonRpcErrorObject }),
  ])
  .meta({ id: 'JsonRpcResponse' });

export const JsonRpcErrorResponse = z
  .object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: JsonRpcErrorObject })
  .meta({ id: 'JsonRpcErrorResponse' });

export type JsonRpcId = z.infer<typeof id>;
export type JsonRpcMessage = z.infer<typeof JsonRpcRequest>;

/** A JSON-RPC error response object. */
export function jsonRpcError(
  requestId: JsonRpcId | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): z.infer<typeof JsonRpcErrorResponse> {
  return { jsonrpc: '2.0', id: requestId, error: { code, message, ...(data ? { data } : {}) } };
}
