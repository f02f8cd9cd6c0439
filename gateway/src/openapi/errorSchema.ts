import { z } from 'zod';
import { API_ERROR_CODES } from '@brand/shared/errors';

/** The REST error body, as errorBody() renders it. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(API_ERROR_CODES as [string, ...string[]]).meta({
        description:
          'Stable machine-readable code. 400 invalid_parameter / invalid_cursor / malformed_request / validation_failed; ' +
          '401 missing_key / invalid_key; 403 insufficient_permission / forbidden_origin; 404 unknown_resource / not_found; ' +
          '405 method_not_allowed; 409 request_conflict; 413 payload_too_large; 415 unsupported_media_type; ' +
          '422 pending_plan_limit; 429 rate_limited; 500 internal_error; 503 service_unavailable.',
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
