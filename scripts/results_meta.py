#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write <results>/meta.json at the end of a gate or mutants run, which
makes the results directory self-describing for summarize.py --merge: the
mode, the tree, the rows and variants the run was asked for, the commits
of the series, the suite and this project, and, for every
<variant>/<row>.json present, its status and SHA-256 (a result changed or
lost later is then seen by the merge).

Exit 0 when meta.json was written, 2 on bad usage.
"""

import argparse
import os
import sys

from atomic_write import write_atomic
from verdict.model import NAME_RE
from verdict.records import dumps
from verdict.results import META, MODES, Meta

USAGE = ('results_meta.py --results DIR --mode gate|mutants --tree NAME '
         '--rows "x86_64 x86_64-ia32 ..." --variants "base patched" '
         '--series COMMIT --suite COMMIT --project COMMIT')


class UsageError(Exception):
    pass


def words(value: str, what: str) -> list:
    items = value.split()
    if not items:
        raise UsageError('empty --%s' % what)
    for item in items:
        if not NAME_RE.match(item):
            raise UsageError('bad --%s word %r' % (what, item))
    return items


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__)
    for name in ('results', 'tree', 'rows', 'variants', 'series', 'suite',
                 'project'):
        parser.add_argument('--' + name, required=True)
    parser.add_argument('--mode', required=True, choices=MODES)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results):
        raise UsageError('no results directory at %s' % args.results)
    for name in ('tree', 'series', 'suite', 'project'):
        value = getattr(args, name)
        if not NAME_RE.match(value):
            raise UsageError('bad --%s %r: one word of letters, digits, '
                             '_.+-' % (name, value))
    args.rows = words(args.rows, 'rows')
    args.variants = words(args.variants, 'variants')
    return args


def main(argv):
    try:
        args = parse_args(argv)
        meta = Meta.scan(args.results, args.mode, args.tree, args.rows,
                         args.variants, args.series, args.suite,
                         args.project)
        path = os.path.join(args.results, META)
        write_atomic(path, dumps(meta.to_json()))
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2
    print('meta: %s: %d of %d results (%s x %s)' % (
        path, len(meta.results), len(args.rows) * len(args.variants),
        ' '.join(args.variants), ' '.join(args.rows)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
