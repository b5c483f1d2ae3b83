// Every client mcpx connects, in the order `mcpx connect --list` shows them. A client is one module here.
import type { Client } from '../client';
import { claudeCode } from './claudeCode';
import { claudeDesktop } from './claudeDesktop';
import { cline } from './cline';
import { codex } from './codex';
import { copilot } from './copilot';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { opencode } from './opencode';
import { windsurf } from './windsurf';
import { zed } from './zed';

export const CLIENTS: readonly Client[] = [
  claudeCode,
  claudeDesktop,
  cursor,
  windsurf,
  gemini,
  codex,
  copilot,
  zed,
  opencode,
  cline,
];

export const clientById = (id: string): Client | undefined => CLIENTS.find((c) => c.id === id);
