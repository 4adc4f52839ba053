// bugbout's vitest reporter: one authenticated report line per test, on bugbout's channel
// (channel.cjs). Lines: `session`; `start` (a test begins); `test` (its outcome);
// `module` (a test file that did not load or whose hooks failed); `file-start` (a test file
// is loaded, with its tests' ids); `file` (a test file is done); `unhandled` (an error
// vitest caught outside every test); `collected` (every test id of the run); `finish`
// (the exit status the run should end with). vitest 3 and later call the hooks of its
// reporter API (onTestCaseResult, onTestRunEnd); vitest 2 knows only onFinished, where the
// same lines are read from its task tree (legacyLines).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { emit, text, testId } = require('./channel.cjs');

const TIMEOUT = /Test timed out in \d+ms/;
const cwd = process.cwd();

function idOf(testCase) {
  const names = [];
  for (let node = testCase; node && node.type !== 'module'; node = node.parent) {
    names.unshift(node.name);
  }
  return testId(cwd, testCase.module.moduleId, names);
}

function errorText(errors) {
  const shown = (error) => {
    const head = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
    const stack = String(error?.stack ?? '');
    return stack.includes(String(error?.message ?? '')) && stack ? stack : `${head}\n${stack}`;
  };
  return text((errors ?? []).map(shown).join('\n\n'));
}

// vitest 2's task tree: a file's tests, each with the names of the suites above it.
function* legacyTests(task, names) {
  for (const child of task.tasks ?? []) {
    if (child.type === 'suite') yield* legacyTests(child, [...names, child.name]);
    else yield [child, [...names, child.name]];
  }
}

function legacyLines(files, errors) {
  const ids = [];
  let failed = (errors ?? []).length > 0;
  for (const file of files ?? []) {
    for (const [test, names] of legacyTests(file, [])) {
      const id = testId(cwd, file.filepath, names);
      ids.push(id);
      const state = test.result?.state;
      if (state === 'pass') {
        emit({ event: 'test', id, outcome: 'passed' });
      } else if (state === 'fail') {
        failed = true;
        const message = errorText(test.result.errors);
        emit({ event: 'test', id, outcome: 'failed', message, timeout: TIMEOUT.test(message) });
      } else if (state === 'skip' || state === 'todo' || test.mode === 'skip' || test.mode === 'todo') {
        emit({ event: 'test', id, outcome: 'skipped', mark: state === 'todo' || test.mode === 'todo' ? 'todo' : 'skip' });
      }
    }
    const fileErrors = file.result?.errors ?? [];
    if (fileErrors.length) {
      failed = true;
      emit({ event: 'module', path: testId(cwd, file.filepath, []), outcome: 'failed',
        message: errorText(fileErrors) });
    }
  }
  emit({ event: 'collected', ids });
  for (const error of errors ?? []) emit({ event: 'unhandled', message: errorText([error]) });
  emit({ event: 'finish', status: failed ? 1 : 0, reason: failed ? 'failed' : 'passed' });
}

export default class BugboutReporter {
  onInit(vitest) {
    this.legacy = !(Number(String(vitest?.version ?? '').split('.')[0]) >= 3);
    emit({ event: 'session', runner: 'vitest' });
  }

  onFinished(files, errors) {
    if (this.legacy) legacyLines(files, errors);
  }

  onTestModuleCollected(testModule) {
    const ids = [];
    for (const testCase of testModule.children.allTests()) ids.push(idOf(testCase));
    emit({ event: 'file-start', path: testId(cwd, testModule.moduleId, []), ids });
  }

  onTestCaseReady(testCase) {
    emit({ event: 'start', id: idOf(testCase) });
  }

  onTestCaseResult(testCase) {
    const result = testCase.result();
    const id = idOf(testCase);
    if (result.state === 'passed') {
      emit({ event: 'test', id, outcome: 'passed' });
    } else if (result.state === 'failed') {
      const message = errorText(result.errors);
      emit({ event: 'test', id, outcome: 'failed', message, timeout: TIMEOUT.test(message) });
    } else if (result.state === 'skipped') {
      const mode = testCase.options?.mode;
      emit({ event: 'test', id, outcome: 'skipped', mark: mode === 'todo' ? 'todo' : 'skip' });
    }
  }

  onTestModuleEnd(testModule) {
    emit({ event: 'file', path: testId(cwd, testModule.moduleId, []) });
    const errors = testModule.errors();
    if (errors.length) {
      emit({ event: 'module', path: testId(cwd, testModule.moduleId, []), outcome: 'failed',
        message: errorText(errors) });
    }
  }

  onTestRunEnd(testModules, unhandledErrors, reason) {
    const ids = [];
    for (const testModule of testModules) {
      for (const testCase of testModule.children.allTests()) ids.push(idOf(testCase));
    }
    emit({ event: 'collected', ids });
    for (const error of unhandledErrors ?? []) {
      emit({ event: 'unhandled', message: errorText([error]) });
    }
    emit({ event: 'finish', status: reason === 'passed' ? 0 : 1, reason });
  }
}
