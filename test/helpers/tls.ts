/**
 * A throwaway TLS certificate for a test's own HTTPS server on loopback, made with the openssl
 * command (tests that use it are tagged `openssl`: test/helpers/services.ts). Valid for
 * 127.0.0.1 for a day; trusted only where a test passes it (NODE_EXTRA_CA_CERTS).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LoopbackCertificate {
  /** Paths of the PEM files in `dir`. */
  keyPath: string;
  certPath: string;
  key: Buffer;
  cert: Buffer;
}

export function loopbackCertificate(dir: string): LoopbackCertificate {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { keyPath, certPath, key: readFileSync(keyPath), cert: readFileSync(certPath) };
}
