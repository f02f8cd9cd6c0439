export { AppError, isAppError, type FieldIssue } from './appError';
export {
  API_ERROR_CODES,
  ERROR_CODES,
  GATEWAY_ERROR_CODES,
  gatewayCodesOfStatus,
  HTTP_LAYER_CODES,
  isErrorCode,
  httpStatusOf,
  grpcStatusOf,
  type ErrorCode,
} from './codes';
export {
  ERROR_CODE_METADATA,
  ERROR_DETAILS_METADATA,
  RETRY_AFTER_METADATA,
  toGrpcFailure,
  fromServiceError,
  type GrpcFailure,
} from './grpcStatus';
export { describeIssues, fieldIssues, MAX_ISSUES, parseOrThrow } from './fieldIssues';
export { MAX_ECHO, quoteInput } from './quoteInput';
export { connectionProblemOf } from './connectionProblem';
