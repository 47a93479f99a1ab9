/**
 * v1 error bodies (docs/integrators/api.md, Errors; docs/contributors/decisions.md §2): `{"errors": [...]}`, one string per
 * problem. Schema validation failures name the parameter or field; a full disk (507) or a database out of reach
 * (503) says so (storage-fault.ts); anything else unexpected is a 500 that says nothing about the inside.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { storageFaultError } from '../../storage-fault.js';
import { wholeNumberProblem } from '../../whole-numbers.js';
import { TextTooLongError } from '../../store/index.js';

export function installV1ErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    const error = storageFaultError(thrown) ?? thrown;
    if (error instanceof ApiError) {
      if (error.retryAfterSeconds !== null) void reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.code(error.statusCode).send({ errors: error.problems });
    }
    // A text over its maximum that no check before the store caught (store/text-limits.ts, issue 17).
    if (error instanceof TextTooLongError) return reply.code(422).send({ errors: [error.message] });
    if (error.validation !== undefined) {
      return reply.code(400).send({ errors: validationProblems(error) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'v1 request failed');
      return reply.code(500).send({ errors: ['internal server error'] });
    }
    // Fastify's own 4xx (malformed JSON, unsupported media type, body too large): its message is safe.
    return reply.code(status).send({ errors: [error.message] });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ errors: [`no such endpoint: ${request.method} ${request.url.split('?')[0]!}`] }),
  );
}

/**
 * One problem per field, from Ajv's errors, the field named as the client sent it: "name is
 * required", and for a whole number the rule of its range ("page_size must be a whole number from 20
 * to 200", whether it was a fraction, Infinity, repeated or out of range; issue 17). Ajv is run with
 * `verbose` (app.ts) so that each error carries the schema it broke.
 */
export function validationProblems(error: {
  validation?: FastifyError['validation'];
  validationContext?: string;
}): string[] {
  const problems = (error.validation ?? []).map((problem) => {
    const missing = (problem.params as { missingProperty?: string }).missingProperty;
    const path = problem.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const field = missing ?? (path === '' ? (error.validationContext ?? 'request') : path);
    if (missing !== undefined) return `${field} is required`;
    const schema = (problem as { parentSchema?: { type?: unknown; minimum?: unknown; maximum?: unknown } })
      .parentSchema;
    if (
      schema?.type === 'integer' &&
      typeof schema.minimum === 'number' &&
      typeof schema.maximum === 'number'
    ) {
      return wholeNumberProblem(field, { min: schema.minimum, max: schema.maximum });
    }
    return `${field} ${problem.message ?? 'is invalid'}`;
  });
  return [...new Set(problems)];
}
