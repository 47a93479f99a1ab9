/**
 * The upload queue (docs/contributors/architecture.md, "Upload queue"; docs/contributors/decisions.md §5): the queue and its worker threads
 * (queue.ts, pool.ts, parse-worker.ts). Accepting files and the task status endpoint are HTTP handlers
 * of the legacy interface (legacy/upload-intake.ts, legacy/queued-tasks.ts; issue 35).
 */
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { UploadQueue } from './queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the upload queue: legacy/upload-intake.ts wakes it when a task is stored */
    uploadQueue: UploadQueue;
  }
}

/**
 * Adds the queue to the app: it starts taking tasks when the server is ready, and stops when it
 * closes. Register it after the hook that closes the database: Fastify runs onClose hooks in reverse
 * order, so running tasks are finished or given back while the database is still open.
 */
export function registerUploadQueue(app: FastifyInstance, context: ServerContext): void {
  const queue = new UploadQueue(context, app.log);
  app.decorate('uploadQueue', queue);
  app.addHook('onReady', (done) => {
    queue.start();
    done();
  });
  app.addHook('onClose', () => queue.stop());
}

export { MAX_PARSE_ATTEMPTS, UploadQueue } from './queue.js';
