// The fixed-window counter moved to @brand/shared/redis, where the console counts wrong SCIM
// tokens with it too; records' limits import it from here as before.
export { digest, retryAfterSecondsOf, WindowCounter } from '@brand/shared/redis';
