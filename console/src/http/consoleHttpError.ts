/** The one way forward a refusal offers, shown as a link on its page. */
export interface WayForward {
  /** A path of the console, e.g. "/sign-in/sso?brand=br_…". */
  href: string;
  label: string;
}

/**
 * A refusal the console answers with a page: its HTTP status, a stable code (in the page and
 * the `X-Console-Error` header, for tests and support), a sentence for the person and, when
 * there is one, a link to what to do instead.
 */
export class ConsoleHttpError extends Error {
  override readonly name = ConsoleHttpError.name;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly wayForward?: WayForward,
  ) {
    super(message);
  }
}
