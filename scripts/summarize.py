#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the per (variant, row) results written by ktap-report.py against
the gate's expectations and print one table: the command-line front end
of verdict/ (the rules in verdict/rules.py, the writers in
verdict/table.py, junit.py, records.py).  A row is an arch (x86_64)
or an arch's compat ABI (x86_64-ia32, shown as x86_64/ia32); results are
read from <results>/<variant>/<row>.json.

gate mode:    base must fail, only in our subtests that need the flag (a
              name component 'flag' or 'flag_*'); patched must pass.
              Writes <results>/summary.md, summary.json and junit.xml
              (the testsuites of every row).
mutants mode: every mutant must be killed by our suite (the run completes
              and one of our programs or subtests fails) on every row, or,
              when its patch has a line "Killed-on: <rows>", on those rows
              and must survive on the others.  The upstream suite's
              failures are shown beside ours, and so are our tests that no
              mutant failed (a test that cannot fail is a defect, unless
              it is a control).  Writes <results>/mutants.md, and
              mutants.json with every killing test.  With --abi-declared
              FILE (default patches/abi-change; none: off), the ABI diff
              is one more killer, "abi-diff": a mutant whose
              clone3_abi_probe lines differ, base (--abi-base) -> mutant,
              from the declared change is killed on that row
              (scripts/abi_diff.py); without base lines, the inputs with
              the flag are held against their twins alone.
--merge:      the same over the results directories of several shards
              (each with the meta.json of results_meta.py), written to
              --out; shards of different series, suite or project commits
              (or modes) are refused.  --expect-rows "TREE:ROW ..." merges
              over trees: one table per tree (also in --out/<tree>/),
              one closing line and verdict; the series commit must then
              agree within each tree.  Otherwise all shards are of one
              tree.

The last line is "N passed, N failed" (one per expectation).  Exit 0 when
every expectation holds, 1 otherwise, 2 on bad usage or a refused merge.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional, Tuple

import abi_diff
from verdict.model import NAME_RE
from verdict.results import Refused
from verdict.summary import UsageError, merge, single

USAGE = ('summarize.py --results build/results --mode gate|mutants '
         '--rows "x86_64 x86_64-ia32 arm64 ..." [--variants "..."] '
         '[--tree NAME] [--mutants-dir patches/mutants] '
         '[--abi-declared patches/abi-change|none [--abi-base base]] '
         '[--change-kind ours|other]\n'
         '       summarize.py --merge DIR... --out DIR --mode gate|mutants '
         '--expect-rows "x86_64 ..."|"6.1:x86_64 6.12:x86_64 ..." '
         '[--variants "..."] [--tree NAME] '
         '[--mutants-dir patches/mutants]')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GATE_VARIANTS = ('base', 'patched')
# The ABI change the series declares: mutants are held against it.
DECLARED = os.path.join(REPO, 'patches', 'abi-change')


def names(value: str, what: str) -> List[str]:
    items = value.split()
    for item in items:
        if not NAME_RE.match(item):
            raise UsageError('bad %s name %r' % (what, item))
    if not items:
        raise UsageError('empty --%s' % what)
    return items


TreeRows = Optional[Dict[str, List[str]]]


def expect_rows(value: str) -> Tuple[List[str], TreeRows]:
    """--expect-rows: "x86_64 x86_64-ia32" (the rows of the shards' one
    tree) -> (rows, None), or "6.1:x86_64 6.12:riscv64" (rows of named
    trees, for a merge over trees) -> (all rows, tree -> rows in order)."""
    words = value.split()
    if not any(':' in w for w in words):
        return names(value, 'expect-rows'), None
    trees: Dict[str, List[str]] = {}
    for word in words:
        tree, sep, row = word.partition(':')
        if not sep or not NAME_RE.match(tree) or not NAME_RE.match(row):
            raise UsageError('bad --expect-rows word %r: give every row as '
                             'TREE:ROW, or none' % word)
        if row in trees.setdefault(tree, []):
            raise UsageError('--expect-rows: %s is given twice' % word)
        trees[tree].append(row)
    return [r for rows in trees.values() for r in rows], trees


def parse_args(argv):
    parser = argparse.ArgumentParser(usage=USAGE, description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument('--results')
    parser.add_argument('--merge', nargs='+', metavar='DIR')
    parser.add_argument('--out')
    parser.add_argument('--expect-rows')
    parser.add_argument('--mode', required=True, choices=('gate', 'mutants'))
    parser.add_argument('--rows', default=None)
    parser.add_argument('--variants', default=None)
    parser.add_argument('--tree', default=None)
    parser.add_argument('--mutants-dir',
                        default=os.path.join(REPO, 'patches', 'mutants'))
    parser.add_argument('--abi-declared', default=DECLARED if
                        os.path.isfile(DECLARED) else 'none')
    parser.add_argument('--abi-base', default='base')
    parser.add_argument('--change-kind', default='ours',
                        choices=('ours', 'other'))
    args = parser.parse_args(argv)
    args.abi_decl = None
    if args.abi_declared != 'none' and args.mode == 'mutants':
        try:
            args.abi_decl = abi_diff.Declaration.read(args.abi_declared)
        except abi_diff.BadInput as e:
            raise UsageError(str(e))
        if not NAME_RE.match(args.abi_base):
            raise UsageError('bad --abi-base %r' % args.abi_base)
    if args.merge:
        if args.results or args.rows:
            raise UsageError('--merge takes --expect-rows and --out, not '
                             '--results or --rows')
        if not args.out or not args.expect_rows:
            raise UsageError('--merge needs --out DIR and --expect-rows')
        for d in args.merge:
            if not os.path.isdir(d):
                raise UsageError('no shard directory at %s' % d)
        args.rows, args.expect_trees = expect_rows(args.expect_rows)
    else:
        if not args.results:
            raise UsageError('--results DIR (or --merge DIR...) is needed')
        if args.out or args.expect_rows:
            raise UsageError('--out and --expect-rows are for --merge')
        if not os.path.isdir(args.results):
            raise UsageError('no results directory at %s' % args.results)
        if not args.rows:
            raise UsageError('--rows "ROW ..." is needed (the rows asked '
                             'for, x86_64 x86_64-ia32 ...)')
        args.rows = names(args.rows, 'rows')
    if args.tree is not None and not NAME_RE.match(args.tree):
        raise UsageError('bad --tree %r' % args.tree)
    args.variants_given = args.variants is not None
    if args.variants_given:
        args.variants = names(args.variants, 'variants')
    elif args.mode == 'gate':
        args.variants = list(GATE_VARIANTS)
    if args.mode == 'gate':
        bad = [v for v in args.variants if v not in GATE_VARIANTS]
        if bad:
            raise UsageError('gate mode has the variants base and patched, '
                             'not %s' % ' '.join(bad))
    if args.mode == 'mutants' and not args.variants_given and \
            not os.path.isdir(args.mutants_dir):
        raise UsageError('no mutants directory at %s' % args.mutants_dir)
    return args


def main(argv):
    try:
        args = parse_args(argv)
        return merge(args) if args.merge else single(args)
    except UsageError as e:
        print('error: %s' % e, file=sys.stderr)
        print('usage: ' + USAGE, file=sys.stderr)
        return 2
    except Refused as e:
        print('error: refusing to merge: %s' % e, file=sys.stderr)
        return 2
    except OSError as e:
        print('error: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
