import { z } from 'zod';
import {
  API_ERROR_CODES,
  GATEWAY_ERROR_CODES,
  gatewayCodesOfStatus,
  HTTP_LAYER_CODES,
  httpStatusOf,
} from '@brand/shared/errors';

/** "400 invalid_parameter / invalid_cursor; 401 ...": the codes the gateway answers (its routes and its HTTP layer), by status. */
function codesByStatus(): string {
  const answered = [...GATEWAY_ERROR_CODES, ...HTTP_LAYER_CODES];
  const statuses = [...new Set(answered.map(httpStatusOf))].sort((a, b) => a - b);
  return statuses.map((s) => `${s} ${gatewayCodesOfStatus(s).join(' / ')}`).join('; ');
}

/** The REST error body, as errorBody() renders it. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(API_ERROR_CODES as [string, ...string[]]).meta({
        description: `Stable machine-readable code. ${codesByStatus()}.`,
      }),
      message: z.string().meta({
        description: 'A human-readable explanation; its wording may change, the code will not.',
      }),
      request_id: z
        .string()
        .meta({ description: 'Also in the X-Request-Id header; quote it to support.' }),
      details: z
        .array(z.object({ field: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'One entry per offending parameter or field.' }),
    }),
  })
  .meta({ id: 'Error' });
