import { status, type handleUnaryCall } from '@grpc/grpc-js';

/** Temporary: RPCs declared in the proto whose implementation lands in a later commit. */
export function notYet<const K extends string>(
  names: readonly K[],
): Record<K, handleUnaryCall<unknown, never>> {
  const out = {} as Record<K, handleUnaryCall<unknown, never>>;
  for (const name of names) {
    out[name] = (_call, callback) =>
      callback({ code: status.UNIMPLEMENTED, details: `${name} is not implemented yet.` });
  }
  return out;
}
