#!/usr/bin/env node
// Where the test suite's time goes: runs `turbo run test` as `npm test` does (two packages at a time),
// with each jest writing its results to .jest-results.json, then prints every package's test task
// time (turbo's own) and the slowest spec files. `--report` prints from the last run's files only.
//
//   node scripts/test-timings.js [--report] [--top N] [-- turbo args, e.g. --filter=@teapot/worker]
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const RESULTS = '.jest-results.json';

function parseArgs(argv) {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const top = own.indexOf('--top');
  return {
    report: own.includes('--report'),
    top: top < 0 ? 25 : Number(own[top + 1]),
    turbo: dash < 0 ? [] : argv.slice(dash + 1),
  };
}

function packageDirs() {
  return ['apps', 'packages'].flatMap((parent) =>
    fs
      .readdirSync(path.join(root, parent))
      .map((name) => path.join(root, parent, name))
      .filter((dir) => fs.existsSync(path.join(dir, 'package.json'))),
  );
}

function run(turboArgs) {
  for (const dir of packageDirs()) fs.rmSync(path.join(dir, RESULTS), { force: true });
  const args = ['scripts/pnpm.js', 'exec', 'turbo', 'run', 'test', '--continue'];
  if (!turboArgs.some((arg) => arg.startsWith('--concurrency'))) args.push('--concurrency=2');
  args.push(
    '--summarize',
    '--output-logs=errors-only',
    ...turboArgs,
    '--',
    '--json',
    `--outputFile=${RESULTS}`,
  );
  const started = Date.now();
  try {
    execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  } catch {
    // --continue ran everything; the failures are in the output above and in the results below
  }
  return Date.now() - started;
}

/** Each package's test task time from turbo's last run summary (ms by package name). */
function turboTaskTimes() {
  const dir = path.join(root, '.turbo', 'runs');
  if (!fs.existsSync(dir)) return new Map();
  const latest = fs
    .readdirSync(dir)
    .map((name) => path.join(dir, name))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  const summary = JSON.parse(fs.readFileSync(latest, 'utf8'));
  return new Map(
    summary.tasks
      .filter((task) => task.task === 'test')
      .map((task) => [task.package, task.execution.endTime - task.execution.startTime]),
  );
}

function report(top, totalMs) {
  const files = [];
  const packages = [];
  const tasks = turboTaskTimes();
  for (const dir of packageDirs()) {
    const file = path.join(dir, RESULTS);
    if (!fs.existsSync(file)) continue;
    const name = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name;
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    let sum = 0;
    for (const spec of results.testResults) {
      const ms = spec.endTime - spec.startTime;
      sum += ms;
      files.push({ ms, file: path.relative(root, spec.name), status: spec.status });
    }
    packages.push({ name, task: tasks.get(name), files: sum, failed: results.numFailedTests });
  }
  const s = (ms) => (ms === undefined ? '-' : (ms / 1000).toFixed(1)).padStart(8);
  console.log('\npackage                      task s  files s  failed');
  for (const p of packages.sort((a, b) => (b.task ?? b.files) - (a.task ?? a.files)))
    console.log(`${p.name.padEnd(26)} ${s(p.task)} ${s(p.files)}  ${p.failed}`);
  console.log(`\nslowest ${top} spec files (s)`);
  for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, top))
    console.log(`${s(f.ms)}  ${f.file}${f.status === 'passed' ? '' : `  (${f.status})`}`);
  if (totalMs !== undefined) console.log(`\nturbo run test: ${(totalMs / 1000).toFixed(0)} s`);
}

const options = parseArgs(process.argv.slice(2));
report(options.top, options.report ? undefined : run(options.turbo));
