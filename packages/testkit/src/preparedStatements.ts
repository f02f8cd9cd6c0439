import type { ClientBase } from 'pg';

/** A statement prepared on one connection, with how PostgreSQL has planned its executions. */
export interface PreparedStatement {
  name: string;
  statement: string;
  /** Executions on the generic plan, and on a plan made for their values. */
  generic: number;
  custom: number;
  parameters: number;
}

/**
 * The statements prepared on `client`'s connection (pg_prepared_statements) whose name is LIKE
 * `nameLike`, by name. PostgreSQL makes five custom plans of a statement before it weighs the
 * generic one; a statement that keeps one generic plan shows custom 5 and the rest generic.
 */
export async function preparedStatements(
  client: ClientBase,
  nameLike: string,
): Promise<PreparedStatement[]> {
  const { rows } = await client.query<{
    name: string;
    statement: string;
    generic_plans: string;
    custom_plans: string;
    parameters: number;
  }>(
    `select name, statement, generic_plans, custom_plans,
       cardinality(parameter_types) as parameters
     from pg_prepared_statements where name like $1 order by name`,
    [nameLike],
  );
  return rows.map((r) => ({
    name: r.name,
    statement: r.statement,
    generic: Number(r.generic_plans),
    custom: Number(r.custom_plans),
    parameters: r.parameters,
  }));
}
