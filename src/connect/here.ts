// The one place `mcpx connect` and the editor's Connect Agents… learn which OS they run on and where its
// folders are: the platform module's reading (docs/platforms.md "Places"), given to the clients as one value.
import { places } from '../platform';
import type { Places } from './places';

export function herePlaces(env: NodeJS.ProcessEnv = process.env): Places {
  const here = places(env);
  return { os: here.os, home: here.home, env, appData: here.os === 'win32' ? here.appData : undefined };
}
