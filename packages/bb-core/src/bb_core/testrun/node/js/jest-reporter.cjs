'use strict';
// bugbout's jest reporter: one authenticated report line per test, on bugbout's channel
// (channel.cjs), with the same lines as the vitest reporter: `session`, `start`, `test`,
// `module`, `file`, `collected`, `finish`.
const { emit, text, testId } = require('./channel.cjs');

const TIMEOUT = /Exceeded timeout of \d+ ?ms/;
const cwd = process.cwd();

function outcomeOf(status) {
  if (status === 'passed') return 'passed';
  if (status === 'failed') return 'failed';
  return 'skipped'; // skipped, pending, todo, disabled
}

class BugboutJestReporter {
  constructor(globalConfig) {
    this.failureStatus = globalConfig?.testFailureExitCode ?? 1;
    // Tests onTestCaseResult reported, by id, counted: two tests may share a name.
    this.reported = new Map();
    this.ids = [];
  }

  onRunStart() {
    emit({ event: 'session', runner: 'jest' });
  }

  onTestCaseStart(test, info) {
    emit({ event: 'start', id: testId(cwd, test.path, [...info.ancestorTitles, info.title]) });
  }

  onTestCaseResult(test, result) {
    const id = this.report(test.path, result);
    this.reported.set(id, (this.reported.get(id) ?? 0) + 1);
  }

  report(file, result) {
    const id = testId(cwd, file, [...result.ancestorTitles, result.title]);
    const outcome = outcomeOf(result.status);
    if (outcome === 'failed') {
      const message = text((result.failureMessages ?? []).join('\n\n'));
      emit({ event: 'test', id, outcome, message, timeout: TIMEOUT.test(message) });
    } else {
      const mark = result.status === 'todo' ? 'todo' : 'skip';
      emit(outcome === 'skipped' ? { event: 'test', id, outcome, mark } : { event: 'test', id, outcome });
    }
    return id;
  }

  onTestResult(test, testResult) {
    emit({ event: 'file', path: testId(cwd, test.path, []) });
    for (const result of testResult.testResults ?? []) {
      const id = testId(cwd, test.path, [...result.ancestorTitles, result.title]);
      this.ids.push(id);
      const left = this.reported.get(id) ?? 0;
      if (left > 0) this.reported.set(id, left - 1);
      else this.report(test.path, result); // skipped and todo tests never start
    }
    if (testResult.testExecError || testResult.failureMessage && !testResult.testResults?.length) {
      const error = testResult.testExecError;
      const message = error ? [error.message, error.stack].filter(Boolean).join('\n')
        : testResult.failureMessage;
      emit({ event: 'module', path: testId(cwd, test.path, []), outcome: 'failed',
        message: text(message) });
    }
  }

  onRunComplete(contexts, results) {
    emit({ event: 'collected', ids: this.ids });
    // jest decides its exit status from these once the reporters are done (its
    // `success` is not set yet here).
    const failed = results.numFailedTests !== 0 || results.numRuntimeErrorTestSuites !== 0
      || Boolean(results.snapshot?.failure) || Boolean(results.runExecError);
    emit({ event: 'finish', status: failed ? this.failureStatus : 0 });
  }

  getLastError() {
    return undefined;
  }
}

module.exports = BugboutJestReporter;
