import type { AuthFailureReason } from '../http/authFailureReason';

/** Told of every refused key (the /metrics counter). */
export type AuthFailureObserver = (reason: AuthFailureReason) => void;
