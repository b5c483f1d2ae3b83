// Settings of what a tool result becomes on its way to the client (docs/gateway.md "Artifacts").
import { D, type SettingDef } from './def';

export const RESULTS: readonly SettingDef[] = [
  D(
    'results.artifactOver',
    'integer',
    0,
    'A tool result larger than this many bytes (its JSON) reaches the client as a short preview and a resource_link to mcpx://artifacts/<id>, the whole result, readable by that client only until proto.askTTL has passed. 0: off.',
    { min: 0 },
  ),
  D(
    'results.artifactBytes',
    'integer',
    64 * 1024 * 1024,
    "Most bytes of artifacts held at once, every client's together. A new artifact evicts the oldest of its own client's; where that is not enough, the result is sent whole instead.",
    { min: 1024 },
  ),
  D(
    'results.artifactShare',
    'integer',
    25,
    "The percentage of results.artifactBytes one client's artifacts may hold (1-100): past it a new artifact evicts that client's own oldest, so one client's results never fill the room every other client's need.",
    { min: 1 },
  ),
];
