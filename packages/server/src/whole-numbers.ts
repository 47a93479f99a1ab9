/**
 * Whole-number parameters (issue 17, "Limits that an attacker can exhaust"): every numeric parameter
 * of every route, in the query, the path, a form or a JSON body, is a finite whole number in its
 * documented range (docs/operators/limits.md, "Numbers in requests"), else a 400 that names the parameter in words.
 * The ranges and their wording live here, for both ways the server reads requests:
 *
 * - routes with Fastify schemas (v1) declare their numbers with `wholeNumberSchema`, and
 *   `refuseUnboundedNumbers` (an onRoute hook) keeps any route whose request schema holds a number
 *   without both bounds from being registered: Ajv coerces the query text "Infinity" or "1e309" to
 *   Infinity, so only a maximum keeps it out of the database (docs/contributors/decisions.md §2: page_size=Infinity
 *   reached SQLite as "datatype mismatch", a 500);
 * - the legacy endpoints and the pages read their parameters by hand, through `readWholeNumber`.
 */
import type { RouteOptions } from 'fastify';
import { badRequest } from './errors.js';

export interface WholeNumberRange {
  min: number;
  max: number;
}

/**
 * Record ids: what an id can be, never more than JavaScript counts exactly (ids beyond it cannot be
 * told apart, and SQLite refuses what it cannot store as an integer).
 */
export const ID_RANGE: WholeNumberRange = { min: 1, max: Number.MAX_SAFE_INTEGER };
/** Page numbers of lists (v1 `page`, the dashboard's pages): a billion pages is past any library. */
export const PAGE_RANGE: WholeNumberRange = { min: 1, max: 1_000_000_000 };
/** Legacy `offset`: as far as a billion records. */
export const OFFSET_RANGE: WholeNumberRange = { min: 0, max: 1_000_000_000 };

/** "page must be a whole number from 1 to 1000000000 (default 1)": the rule, not the value sent. */
export function wholeNumberProblem(name: string, range: WholeNumberRange, fallback?: number): string {
  const rule = `${name} must be a whole number from ${range.min} to ${range.max}`;
  return fallback === undefined ? rule : `${rule} (default ${fallback})`;
}

/**
 * The JSON schema of a whole-number parameter, for Fastify's validation and the OpenAPI document;
 * `validationProblem` words its failures with `wholeNumberProblem`.
 */
export function wholeNumberSchema(
  range: WholeNumberRange,
  extra: { default?: number; description?: string } = {},
): { type: 'integer'; minimum: number; maximum: number; default?: number; description?: string } {
  return { type: 'integer', minimum: range.min, maximum: range.max, ...extra };
}

/** Decimal digits as people write whole numbers; 16 digits hold every safe integer. */
const DIGITS = /^\d{1,16}$/;

/**
 * A parameter as a whole number in `range`: a JSON number that is one, or its decimal digits (spaces
 * around them allowed). Undefined for anything else: a fraction, an exponent, Infinity, NaN, a
 * repeated parameter (an array), an object, or a number out of range.
 */
export function readWholeNumber(raw: unknown, range: WholeNumberRange): number | undefined {
  let value: number | undefined;
  if (typeof raw === 'number') value = raw;
  else if (typeof raw === 'string' && DIGITS.test(raw.trim())) value = Number(raw.trim());
  return value !== undefined && Number.isSafeInteger(value) && value >= range.min && value <= range.max
    ? value
    : undefined;
}

/** `readWholeNumber`, or the 400 that says what `name` must be. */
export function wholeNumberOr400(
  raw: unknown,
  name: string,
  range: WholeNumberRange,
  fallback?: number,
): number {
  const value = readWholeNumber(raw, range);
  if (value === undefined) throw badRequest(wholeNumberProblem(name, range, fallback));
  return value;
}

/**
 * The record id `parameter` of a path (or a query); a 400 naming it in `words` ("the ride id in the
 * address") otherwise.
 */
export function idParameter(source: unknown, parameter: string, words: string): number {
  const raw = (source as Record<string, unknown> | undefined)?.[parameter];
  return wholeNumberOr400(raw, words, ID_RANGE);
}

interface SchemaNode {
  type?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode | SchemaNode[];
}

const isFiniteNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

/** Every number of a request schema that lacks a finite minimum or maximum, by its path. */
export function unboundedNumbers(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as SchemaNode;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const found: string[] =
    (types.includes('integer') || types.includes('number')) &&
    !(isFiniteNumber(node.minimum) && isFiniteNumber(node.maximum))
      ? [path]
      : [];
  for (const [name, property] of Object.entries(node.properties ?? {})) {
    found.push(...unboundedNumbers(property, `${path}.${name}`));
  }
  const items = Array.isArray(node.items) ? node.items : node.items === undefined ? [] : [node.items];
  for (const item of items) found.push(...unboundedNumbers(item, `${path}[]`));
  return found;
}

/**
 * An onRoute hook: a route whose request schema (query, path, headers, body) holds a number without
 * both bounds is a programming error, refused when the server is built rather than found by an
 * attacker.
 */
export function refuseUnboundedNumbers(route: RouteOptions): void {
  const schema = route.schema ?? {};
  const parts = {
    querystring: schema.querystring,
    params: schema.params,
    headers: schema.headers,
    body: schema.body,
  };
  const unbounded = Object.entries(parts).flatMap(([part, partSchema]) => unboundedNumbers(partSchema, part));
  if (unbounded.length > 0) {
    throw new TypeError(
      `${String(route.method)} ${route.url}: every number a request may carry needs a minimum and a maximum (issue 17); these have none: ${unbounded.join(', ')}`,
    );
  }
}
