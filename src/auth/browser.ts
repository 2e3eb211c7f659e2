/**
 * Opens a URL in the user's browser with the platform's opener. Best effort: the URL is always
 * printed as well, so a missing opener (a server, a container) only costs a copy and paste.
 */
import { spawn } from 'node:child_process';

export function openerFor(platform: NodeJS.Platform = process.platform): { command: string; args: (url: string) => string[] } {
  if (platform === 'darwin') return { command: 'open', args: (url) => [url] };
  // `start` is a cmd builtin; its first quoted argument is a window title, hence the empty "".
  if (platform === 'win32') return { command: 'cmd', args: (url) => ['/c', 'start', '""', url.replace(/&/g, '^&')] };
  return { command: 'xdg-open', args: (url) => [url] };
}

/** Starts the opener and forgets it; never throws, never keeps this process alive. */
export function openBrowser(url: string, onFailure: (reason: string) => void = () => {}): void {
  const { command, args } = openerFor();
  try {
    const child = spawn(command, args(url), { stdio: 'ignore', detached: true, windowsHide: true });
    child.on('error', (e) => onFailure(`${command}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    child.unref();
  } catch (e) {
    onFailure(`${command}: ${(e as Error).message}`);
  }
}
