import type { ResolvedOptions } from './options.js';
import type { Store } from './store/index.js';

/** What every plugin of the server gets: the data-access layer and the resolved options. */
export interface ServerContext {
  store: Store;
  options: ResolvedOptions;
}

/** The options object of every plugin (Fastify passes it to the plugin function). */
export interface PluginOptions {
  context: ServerContext;
}
