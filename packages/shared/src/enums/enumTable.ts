import { AppError } from '../errors/appError';

/**
 * One proto enum and the words people and the database use for it ("plus", "live",
 * "submission.approved"). Every package maps through these tables, so a word and its wire
 * value cannot drift apart. UNSPECIFIED and unknown numbers have no name.
 */
export interface EnumTable<Name extends string, Value extends number> {
  /** Every name, in the table's order (lowest tier first, the contract's order, ...). */
  readonly names: readonly Name[];
  toProto(name: Name): Value;
  /** The name of a wire value; undefined for UNSPECIFIED and numbers the table does not know. */
  fromProto(value: number): Name | undefined;
  isName(value: unknown): value is Name;
  /**
   * The name of a wire value a request must set; throws AppError validation_failed naming
   * `field` and the allowed names for UNSPECIFIED and unknown numbers.
   */
  requireName(value: number, field: string): Name;
}

/** Builds an EnumTable from `{ name: Enum.VALUE }`, written `as const satisfies Record<string, Enum>`. */
export function enumTable<const T extends Readonly<Record<string, number>>>(
  table: T,
): EnumTable<Extract<keyof T, string>, T[keyof T]> {
  type Name = Extract<keyof T, string>;
  const names = Object.keys(table) as Name[];
  const byValue = new Map<number, Name>(names.map((name) => [table[name]!, name]));
  return {
    names,
    toProto: (name) => table[name],
    fromProto: (value) => byValue.get(value),
    isName: (value): value is Name => typeof value === 'string' && Object.hasOwn(table, value),
    requireName: (value, field) => {
      const name = byValue.get(value);
      if (name !== undefined) return name;
      const message = `must be one of ${names.join(', ')}`;
      throw new AppError('validation_failed', `${field}: ${message}`, {
        details: [{ field, message }],
      });
    },
  };
}
