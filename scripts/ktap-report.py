#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read one guest console log and write the results of its rows, each file
atomically, under --out-dir:

  <arch>.log, .ktap, .xml, .json         the native document (/clone3)
  <arch>-<abi>.ktap, .xml, .json         with --compat ABI: the compat
                                         document (/clone3-compat) of the
                                         same boot; its JSON names the
                                         same <arch>.log

Each row is pass, fail or error on its own: a compat document that is
missing or cut off is an error of the compat row only.  The reading is
done by verdict/console.py and judged by verdict/rules.py, the files
written by verdict/junit.py and verdict/records.py.

Exit 0 when the results were written (whatever the status), 2 on bad usage.
"""

import argparse
import os
import sys

from atomic_write import write_atomic
from verdict.console import Console
from verdict.junit import junit
from verdict.model import ABI_RE, NAME_RE, Row
from verdict.records import dumps, row_record
from verdict.rules import read_row

USAGE = ("ktap-report.py --log LOG --variant V --arch A --out-dir DIR "
         "[--compat ABI] [--tree NAME] [--timed-out] "
         "[--suite-dir tools-testing-selftests-clone3]")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UsageError(Exception):
    pass


def write_row(out_dir: str, row: Row, log_name: str) -> None:
    base = os.path.join(out_dir, row.name)
    doc = row.document
    ktap = doc.ktap if doc and doc.abi == row.abi else []
    write_atomic(base + '.ktap', ''.join(line + '\n' for line in ktap))
    write_atomic(base + '.xml', junit(row))
    write_atomic(base + '.json', dumps(row_record(row, log_name)))
    print('%s %s: %s: %s' % (row.variant, row.label, row.status.value,
                             row.reason))


def report(args: argparse.Namespace) -> None:
    with open(args.log, 'rb') as f:
        raw = f.read()
    console = Console.from_bytes(raw)
    os.makedirs(args.out_dir, exist_ok=True)
    log = os.path.join(args.out_dir, args.arch + '.log')
    if os.path.abspath(args.log) != os.path.abspath(log):
        write_atomic(log, raw)
    abis = [None] + ([args.compat] if args.compat else [])
    for abi in abis:
        row = read_row(console, args.variant, args.arch, abi, args.tree,
                       args.suite_dir, last_row=abi == abis[-1],
                       timed_out=args.timed_out)
        write_row(args.out_dir, row, os.path.basename(log))


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument('--log', required=True)
    parser.add_argument('--variant', required=True)
    parser.add_argument('--arch', required=True)
    parser.add_argument('--out-dir', required=True)
    parser.add_argument('--compat', metavar='ABI', default=None,
                        help='also write the row <arch>-<ABI> from the '
                        'compat document (ia32, arm32)')
    parser.add_argument('--tree', metavar='NAME', default=None,
                        help='the kernel tree (6.1, 6.12, ksrc), written '
                        'into the JSON and the JUnit')
    parser.add_argument('--timed-out', action='store_true',
                        help='the host timeout killed QEMU')
    parser.add_argument('--suite-dir',
                        default=os.path.join(REPO,
                                             'tools-testing-selftests-clone3'))
    args = parser.parse_args(argv)
    for what in ('variant', 'arch', 'tree'):
        value = getattr(args, what)
        if value is not None and not NAME_RE.match(value):
            raise UsageError('bad --%s %r: use letters, digits, _.+-' %
                             (what, value))
    if args.compat is not None and (not ABI_RE.match(args.compat) or
                                    args.compat == 'native'):
        raise UsageError('bad --compat %r: one word of letters, digits, '
                         '_.+ (ia32, arm32)' % args.compat)
    if not os.path.isfile(args.log):
        raise UsageError('no console log at %s' % args.log)
    if not os.path.isdir(args.suite_dir):
        raise UsageError('no suite directory at %s' % args.suite_dir)
    return args


def main(argv):
    try:
        report(parse_args(argv))
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
