/**
 * Reading a secret from the user: a hidden prompt on a terminal (raw mode, nothing echoed, not
 * even asterisks, so its length does not show on a shared screen), or the first line of stdin
 * when it is piped (`--token-stdin`, `--client-secret-stdin`). The prompt goes to stderr.
 */

export class PromptError extends Error {}

export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Piped input larger than this is not a token; stop reading rather than buffer without bound. */
const MAX_STDIN_BYTES = 64 * 1024;

/**
 * Reads one line from a terminal without echo. Understands Enter, Backspace, Ctrl-U (clear),
 * Ctrl-C and Ctrl-D on an empty line (cancel); escape sequences (arrow keys, bracketed paste
 * markers) are skipped so they do not end up inside the secret.
 */
export function readHidden(question: string, input: SecretInput = process.stdin, output: NodeJS.WritableStream = process.stderr): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== 'function') {
    return Promise.reject(new PromptError('stdin is not a terminal, so a hidden prompt is not possible'));
  }
  const setRaw = input.setRawMode.bind(input);
  output.write(question);
  return new Promise<string>((resolve, reject) => {
    let value = '';
    let escape: 'none' | 'start' | 'csi' = 'none';
    const finish = (err: Error | null) => {
      input.removeListener('data', onData);
      setRaw(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (escape === 'start') {
          escape = ch === '[' || ch === 'O' ? 'csi' : 'none';
          continue;
        }
        if (escape === 'csi') {
          // A CSI sequence ends with a byte in @..~ (letters, "~").
          if (ch >= '@' && ch <= '~') escape = 'none';
          continue;
        }
        switch (ch) {
          case '\r':
          case '\n':
            return finish(null);
          case '\u0003':
            return finish(new PromptError('cancelled'));
          case '\u0004':
            if (value === '') return finish(new PromptError('cancelled'));
            return finish(null);
          case '\u007f':
          case '\b':
            value = [...value].slice(0, -1).join('');
            continue;
          case '\u0015':
            value = '';
            continue;
          case '\u001b':
            escape = 'start';
            continue;
          default:
            if (ch >= ' ') value += ch;
        }
      }
    };
    setRaw(true);
    input.on('data', onData);
    input.resume();
  });
}

/** The first line of piped stdin, trimmed. Empty input is an error that says what was expected. */
export async function readStdinLine(what: string, input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text = '';
  let bytes = 0;
  for await (const chunk of input) {
    const s = typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    bytes += Buffer.byteLength(s);
    text += s;
    if (text.includes('\n') || bytes > MAX_STDIN_BYTES) break;
  }
  const line = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (line === '') throw new PromptError(`no ${what} on stdin: pipe it in, for example from a password manager`);
  return line;
}

/**
 * A secret from stdin: a hidden prompt when stdin is a terminal (even with the *-stdin flag, so
 * it is never echoed), else the piped line when `piped` was asked for.
 */
export async function readSecret(
  what: string,
  piped: boolean,
  flag: string,
  input: SecretInput = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  if (input.isTTY) {
    const value = (await readHidden(`Paste the ${what} (input is hidden), then press Enter: `, input, output)).trim();
    if (value === '') throw new PromptError(`no ${what} was entered`);
    return value;
  }
  if (!piped) throw new PromptError(`stdin is not a terminal: pipe the ${what} in and pass ${flag}`);
  return readStdinLine(what, input);
}
