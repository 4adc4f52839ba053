// bugbout's vitest reporter: one authenticated report line per test, on bugbout's channel
// (channel.cjs). Lines: `session`; `start` (a test begins); `test` (its outcome);
// `module` (a test file that did not load or whose hooks failed); `file-start` (a test file
// is loaded, with its tests' ids); `file` (a test file is done); `unhandled` (an error
// vitest caught outside every test); `collected` (every test id of the run); `finish`
// (the exit status the run should end with).
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

export default class BugboutReporter {
  onInit() {
    emit({ event: 'session', runner: 'vitest' });
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
