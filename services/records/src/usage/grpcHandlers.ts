import type { UsageServiceServer } from '@brand/proto/access/v1/usage';
import type { Pool } from '@brand/shared/db';
import type { RpcBuilder } from '@brand/shared/grpc';
import { recordUsage } from './recordUsage';
import { getUsage, listRequestLog } from './usageQueries';

export interface UsageDeps {
  pool: Pool;
  /** Told which brands' request logs grew (the retention sweep trims them). */
  touched: (brands: Iterable<string>) => void;
}

/**
 * The UsageService: RecordUsage is the gateways' (internal credential); GetUsage and
 * ListRequestLog are the Developers area's (operators, or the console for a member).
 */
export function usageHandlers(deps: UsageDeps, rpc: RpcBuilder): UsageServiceServer {
  return {
    recordUsage: rpc.internal('RecordUsage', async (req) => {
      deps.touched(await recordUsage(deps.pool, req));
      return {};
    }),
    getUsage: rpc.developers('GetUsage', async (req, { actor }) =>
      getUsage(deps.pool, actor, { brandId: req.brand_id, keyId: req.key_id, window: req.window }),
    ),
    listRequestLog: rpc.developers('ListRequestLog', async (req, { actor }) =>
      listRequestLog(deps.pool, actor, {
        brandId: req.brand_id,
        keyId: req.key_id,
        errorCode: req.error_code,
        pageSize: req.page_size,
        pageToken: req.page_token,
        since: req.since,
        until: req.until,
      }),
    ),
  };
}
