/**
 * v1 error bodies (docs/integrators/api.md, Errors): `{"errors": [...], "error_codes": [...]}`, one
 * string per problem and, under `error_codes` (issue 35), the server's code of each problem at the
 * same index (errors.ts: SERVER_MISSING_FIELD, SERVER_NOT_FOUND, …). Schema validation failures name
 * the parameter or field; a full disk (507) or a database out of reach (503) says so
 * (storage-fault.ts); anything else unexpected is a 500 that says nothing about the inside. Every
 * answer, Fastify's own 4xx and unknown endpoints included, has both lists.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  answerableError,
  codeForStatus,
  invalidField,
  missingField,
  ServerErrorCode,
  type Problem,
  type ServerError,
} from '../../errors.js';
import { storageFaultError } from '../../storage-fault.js';
import { wholeNumberProblem } from '../../whole-numbers.js';

/** A v1 error body: `errors` as the specification has it, `error_codes` beside it (issue 35). */
export interface V1ErrorBody {
  errors: string[];
  error_codes: ServerErrorCode[];
}

/** The body for these problems. */
export function v1ErrorBody(problems: readonly Problem[]): V1ErrorBody {
  return {
    errors: problems.map((problem) => problem.words),
    error_codes: problems.map((problem) => problem.code),
  };
}

/** Fastify's own errors whose code says more than their status (its content-type parser's). */
const FASTIFY_CODES: Readonly<Record<string, ServerErrorCode>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ServerErrorCode.MALFORMED_BODY,
  FST_ERR_CTP_EMPTY_JSON_BODY: ServerErrorCode.MALFORMED_BODY,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ServerErrorCode.MALFORMED_BODY,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ServerErrorCode.UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_BODY_TOO_LARGE: ServerErrorCode.PAYLOAD_TOO_LARGE,
};

export function installV1ErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | ServerError, request: FastifyRequest, reply: FastifyReply) => {
    const error = storageFaultError(thrown) ?? thrown;
    const answerable = answerableError(error);
    if (answerable !== null) {
      if (answerable.retryAfterSeconds !== null) {
        void reply.header('retry-after', String(answerable.retryAfterSeconds));
      }
      const problems = answerable.problems.map((words, index) => ({
        words,
        code: answerable.problemCodes[index]!,
      }));
      return reply.code(answerable.statusCode).send(v1ErrorBody(problems));
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation !== undefined) {
      return reply.code(400).send(v1ErrorBody(validationProblems(fastifyError)));
    }
    const status = fastifyError.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'v1 request failed');
      return reply
        .code(500)
        .send(v1ErrorBody([{ code: ServerErrorCode.INTERNAL, words: 'internal server error' }]));
    }
    // Fastify's own 4xx (malformed JSON, unsupported media type, body too large): its message is safe.
    const code = FASTIFY_CODES[fastifyError.code] ?? codeForStatus(status);
    return reply.code(status).send(v1ErrorBody([{ code, words: fastifyError.message }]));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(
      v1ErrorBody([
        {
          code: ServerErrorCode.NO_SUCH_ENDPOINT,
          words: `no such endpoint: ${request.method} ${request.url.split('?')[0]!}`,
        },
      ]),
    ),
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
}): Problem[] {
  const problems = (error.validation ?? []).map((problem): Problem => {
    const missing = (problem.params as { missingProperty?: string }).missingProperty;
    const path = problem.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const field = missing ?? (path === '' ? (error.validationContext ?? 'request') : path);
    if (missing !== undefined) return missingField(field);
    const schema = (problem as { parentSchema?: { type?: unknown; minimum?: unknown; maximum?: unknown } })
      .parentSchema;
    if (
      schema?.type === 'integer' &&
      typeof schema.minimum === 'number' &&
      typeof schema.maximum === 'number'
    ) {
      return invalidField(wholeNumberProblem(field, { min: schema.minimum, max: schema.maximum }));
    }
    return invalidField(`${field} ${problem.message ?? 'is invalid'}`);
  });
  // The same words once (a whole number that breaks both its minimum and its type, say).
  const unique = new Map<string, Problem>();
  for (const problem of problems) if (!unique.has(problem.words)) unique.set(problem.words, problem);
  return [...unique.values()];
}
