/**
 * PHP amounts as exact integer centavos. Floats are never used for arithmetic on money: a
 * string is checked as written, a number through its shortest decimal text, against one
 * decimal pattern, so 0.1 + 0.2 style errors cannot arise.
 *
 * A JSON number is not seen as written: JSON.parse has already made it the nearest double,
 * and Node 20's JSON.parse cannot give the source text. So for a number the rule (at most two
 * decimals, no exponent) holds of that double's shortest decimal form, not of the client's
 * text: 1e2 is read as 100, 25000.500 as 25000.5, and 25000.499999999999999 (nearest double
 * 25000.5) as 25000.50, all accepted; 25000.123 and 1e-7 are refused. A client that wants the
 * exact rule applied to what it wrote sends the budget as a string (docs/campaign-plans.md).
 */

/** The largest planning budget accepted: PHP 100,000,000.00. */
export const MAX_PLANNING_BUDGET_CENTAVOS = 10_000_000_000;

/** Plain decimal: digits, optionally a point and one or two digits. No sign, exponent or spaces. */
const DECIMAL = /^(\d+)(?:\.(\d{1,2}))?$/;

export type BudgetResult = { ok: true; centavos: number } | { ok: false; message: string };

/**
 * Parses a positive PHP amount given as a JSON number or a decimal string ("25000.5",
 * "25000.50", 25000.5) into integer centavos. Refuses (never throws) negatives, zero, more
 * than two decimals, exponents, NaN/Infinity, blank or padded strings and amounts above
 * MAX_PLANNING_BUDGET_CENTAVOS, each with a message saying what is wrong.
 */
export function parseBudget(value: number | string): BudgetResult {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, message: 'must be a finite number.' };
    text = String(value);
  } else {
    text = value;
  }
  if (text.startsWith('-')) return { ok: false, message: 'must be a positive amount.' };
  if (/e/i.test(text))
    return { ok: false, message: 'must be a plain decimal, without an exponent.' };
  const m = DECIMAL.exec(text);
  if (!m) {
    if (/^\d+\.\d{3,}$/.test(text))
      return { ok: false, message: 'must have at most two decimals (centavos).' };
    return {
      ok: false,
      message: 'must be a PHP amount: a number or a decimal string such as "25000.50".',
    };
  }
  // More than 12 whole digits is far above the maximum; stop before Number() loses precision.
  if (m[1]!.length > 12) return { ok: false, message: TOO_LARGE };
  const whole = Number(m[1]);
  const cents = Number((m[2] ?? '').padEnd(2, '0'));
  const centavos = whole * 100 + cents;
  const problem = centavosProblem(centavos);
  return problem ? { ok: false, message: problem } : { ok: true, centavos };
}

const TOO_LARGE = 'must be at most 100000000.00 PHP.';

/**
 * The problem with an amount already in centavos (the plans service's gRPC form, and the
 * last step of parseBudget), or undefined when it is a whole, positive amount of at most
 * MAX_PLANNING_BUDGET_CENTAVOS.
 */
export function centavosProblem(centavos: number): string | undefined {
  if (!Number.isInteger(centavos)) return 'must be a whole number of centavos.';
  if (centavos <= 0) return 'must be a positive amount.';
  if (centavos > MAX_PLANNING_BUDGET_CENTAVOS) return TOO_LARGE;
  return undefined;
}

/** Integer centavos as the canonical decimal string with two decimals: 2500050 -> "25000.50". */
export function formatCentavos(centavos: number): string {
  const whole = Math.trunc(centavos / 100);
  const cents = String(centavos % 100).padStart(2, '0');
  return `${whole}.${cents}`;
}
