/**
 * zod 4 compiles a fast parser for each object schema with `new Function`, after probing once whether it may;
 * under our CSP (`script-src 'self'`, no 'unsafe-eval') the probe alone is reported as a violation. Jitless, it
 * interprets its schemas. Object schemas read this setting when they are created, so this module must be
 * evaluated before any schema module: it is the first import of main.tsx.
 */
import { z } from 'zod';

z.config({ jitless: true });
