import { ONCE_FIELD } from './submitOnce';

/** The hidden one-time token of a create form (submitOnce.ts): its repeats create nothing. */
export function OnceField(props: { token: string }) {
  return <input type="hidden" name={ONCE_FIELD} value={props.token} />;
}
