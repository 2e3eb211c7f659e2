/**
 * The hidden prompt, on a stand-in terminal (a stream that says it is a TTY and records raw
 * mode): nothing typed is echoed, editing keys work, escape sequences stay out of the secret,
 * raw mode is always switched off again; piped stdin gives its first line.
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readHidden, readSecret, readStdinLine } from '../../src/auth/prompt.js';

function fakeTty() {
  const input = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode(m: boolean): void; modes: boolean[] };
  input.isTTY = true;
  input.modes = [];
  input.setRawMode = (m: boolean) => void input.modes.push(m);
  let echoed = '';
  const output = new PassThrough();
  output.on('data', (c: Buffer) => (echoed += c.toString()));
  return { input, output, echoed: () => echoed };
}

describe('readHidden', () => {
  it('reads a line in raw mode without echoing it', async () => {
    const t = fakeTty();
    const pending = readHidden('Token: ', t.input, t.output);
    t.input.write('sec');
    t.input.write('ret-\u001b[Dvalue\u007f\u007fue\r');
    expect(await pending).toBe('secret-value');
    expect(t.echoed()).toBe('Token: \n');
    expect(t.input.modes).toEqual([true, false]);
  });

  it('Ctrl-U clears what was typed; Ctrl-C cancels and leaves raw mode', async () => {
    const t = fakeTty();
    const first = readHidden('> ', t.input, t.output);
    t.input.write('wrong\u0015right\n');
    expect(await first).toBe('right');
    const second = readHidden('> ', t.input, t.output);
    t.input.write('abc\u0003');
    await expect(second).rejects.toThrow('cancelled');
    expect(t.input.modes).toEqual([true, false, true, false]);
    expect(t.echoed()).not.toMatch(/abc|right|wrong/);
  });

  it('refuses a stream that is not a terminal', async () => {
    await expect(readHidden('> ', Readable.from(['x\n']) as never)).rejects.toThrow(/not a terminal/);
  });
});

describe('piped secrets', () => {
  it('takes the first line, trimmed', async () => {
    expect(await readStdinLine('token', Readable.from(['  tok', 'en-1  \r\nsecond line\n']))).toBe('token-1');
  });

  it('says what was missing on empty input', async () => {
    await expect(readStdinLine('YNAB personal access token', Readable.from(['\n']))).rejects.toThrow(/no YNAB personal access token on stdin/);
  });

  it('readSecret uses the hidden prompt on a terminal even with the *-stdin flag, and asks for the flag otherwise', async () => {
    const t = fakeTty();
    const pending = readSecret('client secret', true, '--client-secret-stdin', t.input, t.output);
    t.input.write('s3cr3t\r');
    expect(await pending).toBe('s3cr3t');
    expect(t.input.modes).toEqual([true, false]);
    expect(t.echoed()).toBe('Paste the client secret (input is hidden), then press Enter: \n');
    await expect(readSecret('token', false, '--token-stdin', Readable.from(['x\n']))).rejects.toThrow(/pass --token-stdin/);
  });
});
