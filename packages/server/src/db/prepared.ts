/**
 * Queries built and compiled by Kysely once, then run with new values (issue 4's bench/api). Building
 * and compiling a query (parsing its references, freezing its operation nodes, visiting them into SQL)
 * was about three quarters of the credential check on every authenticated v1 request, although the SQL
 * never changes, only the values. The statement itself is kept by the connection (db/open.ts).
 *
 * The query runs through `db.executeQuery`, so it takes its turn on the connection like any other
 * Kysely query: it never runs inside a transaction another request has open.
 */
import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Stands for the `index`th value while the query is built; replaced by that value on each run. */
class Slot {
  constructor(readonly index: number) {}
}

export class PreparedQuery<Values extends readonly unknown[], Row> {
  readonly #db: Kysely<Database>;
  readonly #compiled: CompiledQuery<Row>;

  /**
   * `build` makes the query from its `arity` values. It is called once, with stand-ins, and must bind
   * each value exactly once as a parameter (not written into the SQL text), which is checked here.
   * A value is bound as one parameter, so a list of values cannot be one of them.
   */
  constructor(
    db: Kysely<Database>,
    arity: Values['length'],
    build: (db: Kysely<Database>, ...values: Values) => Compilable<Row>,
  ) {
    this.#db = db;
    const slots = Array.from({ length: arity }, (_, index) => new Slot(index));
    this.#compiled = build(db, ...(slots as unknown as Values)).compile();
    const bound = this.#compiled.parameters.filter((parameter) => parameter instanceof Slot);
    if (bound.length !== arity || new Set(bound).size !== arity) {
      throw new Error('a prepared query must bind each of its values exactly once');
    }
  }

  async execute(...values: Values): Promise<Row[]> {
    const parameters = this.#compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? values[parameter.index] : parameter,
    );
    const result = await this.#db.executeQuery<Row>({ ...this.#compiled, parameters });
    return result.rows;
  }

  async executeTakeFirst(...values: Values): Promise<Row | undefined> {
    const rows = await this.execute(...values);
    return rows[0];
  }
}
