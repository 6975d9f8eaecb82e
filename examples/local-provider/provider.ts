/**
 * A model provider of your own, as a plugin: `local-sim` sends the run's requests to a `rein sim
 * serve` (or any server speaking the Messages API) at a URL you give, under its own provider name.
 * A preset selects it with `model.provider: local-sim` and loads this file under `plugins:`.
 */
import { z } from 'zod';
import { createAnthropicClient, definePlugin } from '../../index.js';

export const options = z.object({
  /** The server's base URL (`rein sim serve` prints it). Default: LOCAL_SIM_URL. */
  url: z.url().optional(),
}).strict();

export default definePlugin({
  name: 'local-provider',
  description: 'The local-sim model provider: a rein sim serve at a given URL',
  options,
  providers: {
    'local-sim': {
      description: 'a rein sim serve at options.url or LOCAL_SIM_URL',
      create(context, opts) {
        const url = opts.url ?? context.env.LOCAL_SIM_URL;
        if (!url) throw new Error('model provider local-sim: no server to talk to; set the plugin\'s url option or LOCAL_SIM_URL (rein sim serve prints its URL)');
        // No proxy between rein and a server on this machine: the client reads proxies from `env`.
        const client = createAnthropicClient({ baseURL: url, apiKey: 'local', kind: 'local-sim', env: {} });
        return { client, kind: 'api', notice: `sending requests to the local-sim server at ${url}` };
      },
    },
  },
  // The provider is all this plugin brings; nothing to tap.
  apply() {},
});
