/**
 * A refusal the console answers with a page: its HTTP status, a stable code (in the page and
 * the `X-Console-Error` header, for tests and support) and a sentence for the person.
 */
export class ConsoleHttpError extends Error {
  override readonly name = ConsoleHttpError.name;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
