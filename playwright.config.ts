import { defineConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * Browser journeys in Debian's Chromium against the real server and a fresh embedded database.
 * The port and data folder are chosen once, by the runner, and inherited by the workers through the env.
 */
function freePort(): string {
  return execFileSync(
    process.execPath,
    [
      '-e',
      "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close();})",
    ],
    { encoding: 'utf8' },
  ).trim();
}
process.env.E2E_PORT ??= freePort();
// the HL7 v2 MLLP listener of the e2e server (e2e/hl7.spec.ts sends messages to it over a real socket)
process.env.E2E_MLLP_PORT ??= freePort();
// the demo hospital (FHIR R4) of the e2e server: its own port, not the 8090 a developer's `npm start` may hold
// (e2e/source-change.spec.ts changes a record there over HTTP)
process.env.E2E_DEMO_FHIR_PORT ??= freePort();
// the demo EDC (a Rave-style ODM receiver) the EDC sync journey syncs to
process.env.E2E_DEMO_EDC_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= mkdtempSync(`${tmpdir()}/esource-e2e-`);
process.env.E2E_WEB_DIST ??= mkdtempSync(`${tmpdir()}/esource-e2e-web-`);
// each run its own output folder: several sessions may run journeys on this machine at once
process.env.E2E_OUTPUT_DIR ??= `test-results/run-${Date.now()}-${process.pid}`;
const port = process.env.E2E_PORT;
const baseURL = process.env.E2E_BASE_URL ?? `http://127.0.0.1:${port}`;

const server = existsSync('scripts/start.mjs') ? 'node scripts/start.mjs' : 'npx tsx apps/server/src/main.ts';
// the web app is built into this run's own folder (other runs on this machine may rebuild apps/web/dist)
const webDist = process.env.E2E_WEB_DIST;
const build =
  process.env.E2E_SKIP_BUILD === '1' ? '' : `npm run build -w apps/web --silent -- --outDir ${webDist} --emptyOutDir && `;

export default defineConfig({
  testDir: 'e2e',
  outputDir: process.env.E2E_OUTPUT_DIR,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // one server, one database: journeys change shared state (passwords, sessions), so run them in order
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    // the app honours the system's "reduce motion": no antd animations to wait for and render (CPU on two cores)
    reducedMotion: 'reduce',
    // a trace records every action's DOM snapshot and screencast frames, kept only when a journey fails: ~30 % of a
    // run's CPU. E2E_TRACE=0 (CI, whose trace files nobody can open) records none; a failure still keeps its screenshot
    trace: process.env.E2E_TRACE === '0' ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: process.env.E2E_BASE_URL
    ? undefined
    : {
        command: `${build}${server}`,
        url: `${baseURL}/api/health`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: 'pipe',
        stderr: 'pipe',
        env: {
          PORT: port,
          HOST: '127.0.0.1',
          DATA_DIR: process.env.E2E_DATA_DIR,
          // always the embedded database of `npm start` (CI sets DATABASE_URL for the API integration tests only)
          DATABASE_URL: '',
          WEB_DIST: process.env.E2E_SKIP_BUILD === '1' ? (process.env.WEB_DIST ?? 'apps/web/dist') : webDist,
          SKIP_WEB_BUILD: '1',
          ESOURCE_TEST_HOOKS: '1',
          MLLP_PORT: process.env.E2E_MLLP_PORT,
          DEMO_FHIR_PORT: process.env.E2E_DEMO_FHIR_PORT,
          DEMO_EDC_PORT: process.env.E2E_DEMO_EDC_PORT,
          // journeys run extractions themselves: the daily automatic one (12:00 project time, catching up at start)
          // would otherwise fill the demo subjects' forms before a journey begins, depending on the time of day
          AUTO_EXTRACT: '0',
          LOG_LEVEL: 'warn',
        },
      },
});
