# SPDX-License-Identifier: GPL-2.0
"""Run a unittest module and print one TAP line per test ("ok 1 - name",
"not ok 2 - name", "ok 3 - name # SKIP reason"), details of failures on
stderr, then the failed tests' names and the closing line
"N passed, N failed, N skipped": a skipped test is counted as skipped,
never as passed.  scripts/check.sh counts the closing line."""

import os
import sys
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'scripts')


def script(name):
    """The command that runs scripts/NAME under the tests' own
    interpreter, not through a shim that may come first in PATH
    (pyenv's costs 0.3 s a call)."""
    return [sys.executable, os.path.join(SCRIPTS, name)]


class TapResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.number = 0
        self.passed = 0
        self.failed_names = []

    def line(self, ok, test, note=''):
        self.number += 1
        print('%s %d - %s%s' % ('ok' if ok else 'not ok', self.number,
                                test.id(), note), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1
        self.line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.failed_names.append(test.id())
        self.line(False, test)

    def addError(self, test, err):
        super().addError(test, err)
        self.failed_names.append(test.id())
        self.line(False, test, ' (error)')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.line(True, test, ' # SKIP %s' % reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.passed += 1
        self.line(True, test, ' # expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.failed_names.append(test.id())
        self.line(False, test, ' (unexpected success)')


def closing_line(result: TapResult) -> str:
    return '%d passed, %d failed, %d skipped' % (
        result.passed, len(result.failed_names), len(result.skipped))


def main(module='__main__'):
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[module])
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=0,
                                     resultclass=TapResult)
    result = runner.run(suite)
    sys.stderr.flush()
    if result.failed_names:
        print('failed: ' + ', '.join(result.failed_names))
    print(closing_line(result), flush=True)
    sys.exit(0 if result.wasSuccessful() else 1)
