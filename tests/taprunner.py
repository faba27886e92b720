# SPDX-License-Identifier: GPL-2.0
"""Run a unittest module and print one "ok - name" / "not ok - name" line
per test (what scripts/check.sh counts), details of failures after them."""

import sys
import unittest


class TapResult(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        print('ok - %s' % test.id(), flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print('not ok - %s' % test.id(), flush=True)

    def addError(self, test, err):
        super().addError(test, err)
        print('not ok - %s (error)' % test.id(), flush=True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print('ok - %s # SKIP %s' % (test.id(), reason), flush=True)


def main(module='__main__'):
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[module])
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=0,
                                     resultclass=TapResult)
    result = runner.run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
