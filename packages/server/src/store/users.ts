/**
 * Accounts (docs/contributors/decisions.md §1): people sign in with email and password; organizations have no
 * credentials of their own and act through their administrators. Clubs are organizations.
 */
import type { MembershipRole, UserRow } from '../db/schema.js';
import { hashPassword, verifyPassword } from '../security/passwords.js';
import { ConflictError } from '../errors.js';
import type { StoreContext } from './context.js';
import { assertFits, TEXT_MAX_CHARS } from './text-limits.js';

export interface NewPerson {
  email: string;
  password: string;
  name?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

export class Users {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async createPerson(person: NewPerson): Promise<UserRow> {
    const now = this.#context.clock();
    const email = person.email.trim();
    const name =
      person.name?.trim() ||
      [person.firstName, person.lastName].filter(Boolean).join(' ') ||
      email.split('@')[0]!;
    assertFits('email', email, TEXT_MAX_CHARS.email);
    assertFits('name', name, TEXT_MAX_CHARS.userName);
    assertFits('first name', person.firstName, TEXT_MAX_CHARS.userName);
    assertFits('last name', person.lastName, TEXT_MAX_CHARS.userName);
    try {
      return await this.#context.db
        .insertInto('users')
        .values({
          kind: 'person',
          email,
          name,
          first_name: person.firstName ?? null,
          last_name: person.lastName ?? null,
          description: null,
          password_hash: await hashPassword(person.password),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (error) {
      if (this.#context.engine.isUniqueViolation(error)) {
        throw new ConflictError(`a user with the email ${email} exists already`, { cause: error });
      }
      throw error;
    }
  }

  /** A new organization with `adminId` as its first administrator, in one transaction. */
  async createOrganization(
    name: string,
    adminId: number,
    description: string | null = null,
  ): Promise<UserRow> {
    assertFits('name', name.trim(), TEXT_MAX_CHARS.userName);
    assertFits('description', description, TEXT_MAX_CHARS.userDescription);
    const now = this.#context.clock();
    return this.#context.db.transaction().execute(async (trx) => {
      const organization = await trx
        .insertInto('users')
        .values({
          kind: 'organization',
          email: null,
          name: name.trim(),
          first_name: null,
          last_name: null,
          description,
          password_hash: null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('memberships')
        .values({ organization_id: organization.id, user_id: adminId, role: 'admin', created_at: now })
        .execute();
      return organization;
    });
  }

  /** Adds `userId` to the organization, or changes their role. */
  async setMembership(organizationId: number, userId: number, role: MembershipRole): Promise<void> {
    await this.#context.db
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: userId, role, created_at: this.#context.clock() })
      .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.#context.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.#context.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email.trim())
      .where('kind', '=', 'person')
      .executeTakeFirst();
  }

  /**
   * Sets a person's password (`rideport admin set-password`, issue 20: for a rider who lost the printed
   * one) and ends their web sessions and the sign-in links issued before it (issue 36), in one
   * transaction: a password changed because it leaked must not leave a browser signed in, nor a link
   * that signs one in. Auth tokens stay, so syncing goes on. Returns the sessions ended.
   */
  async setPassword(userId: number, password: string): Promise<number> {
    const passwordHash = await hashPassword(password);
    return this.#context.db.transaction().execute(async (db) => {
      await db
        .updateTable('users')
        .set({ password_hash: passwordHash, updated_at: this.#context.clock() })
        .where('id', '=', userId)
        .where('kind', '=', 'person')
        .execute();
      const ended = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
      await db.deleteFrom('sign_in_links').where('user_id', '=', userId).execute();
      return Number(ended.numDeletedRows);
    });
  }

  /**
   * The person with this email and password, or undefined. Takes as long for an unknown email as for a
   * wrong password, so the answer never tells whether an email exists (docs/contributors/decisions.md §1).
   */
  async authenticate(email: string, password: string): Promise<UserRow | undefined> {
    const user = await this.findByEmail(email);
    const matches = await verifyPassword(password, user?.password_hash ?? null);
    return matches ? user : undefined;
  }

  async roleIn(organizationId: number, userId: number): Promise<MembershipRole | undefined> {
    const row = await this.#context.db
      .selectFrom('memberships')
      .select('role')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role;
  }

  /** The organizations `userId` belongs to, with the role there, by name. */
  organizationsOf(userId: number): Promise<Array<UserRow & { role: MembershipRole }>> {
    return this.#context.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.organization_id')
      .selectAll('users')
      .select('memberships.role')
      .where('memberships.user_id', '=', userId)
      .orderBy('users.name')
      .execute();
  }

  /** How many people have accounts (an empty database makes `rideport serve` say how to create one). */
  async countPeople(): Promise<number> {
    const row = await this.#context.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('kind', '=', 'person')
      .executeTakeFirstOrThrow();
    return row.count;
  }

  async memberCount(organizationId: number): Promise<number> {
    const row = await this.#context.db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return row.count;
  }
}
