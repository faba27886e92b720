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
import contextlib
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

import abi_diff
from atomic_write import write_atomic
from verdict import records, table
from verdict.junit import cells_junit, merge_junit
from verdict.model import NAME_RE, Result, Run
from verdict.results import (Meta, MetaError, Refused, ShardResults,
                             ShardRun, directory_run, load_shards,
                             read_metas, same)
from verdict.rules import (AbiCheck, Cell, NoMutants, gate_cells,
                           judge_mutants, mutant_list)

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


class UsageError(Exception):
    pass


# -- the writers, over what the rules decided -------------------------------

def write_gate(out: str, run: Run, cells: List[Cell], variants: List[str],
               rows: List[str], notes: List[str],
               extra: Optional[dict] = None, kind: str = 'ours') -> int:
    text = table.gate_text(cells, variants, rows, run.tree, notes, kind)
    record = records.gate_record(cells, variants, rows, run.tree, notes,
                                 table.closing([c.ok for c in cells]),
                                 extra)
    write_atomic(os.path.join(out, 'summary.md'), text)
    write_atomic(os.path.join(out, 'summary.json'), records.dumps(record))
    write_atomic(os.path.join(out, 'junit.xml'),
                 cells_junit(cells, run.tree))
    print(text, end='')
    return 0 if all(c.ok for c in cells) else 1


def mutants_of(args) -> List[Tuple[str, Optional[str]]]:
    try:
        return mutant_list(args.mutants_dir, args.variants if
                           args.variants_given else None)
    except NoMutants as e:
        raise UsageError(str(e))


def write_mutants(run: Run, args, out: str, notes: List[str]) -> int:
    abi = AbiCheck(args.abi_declared, args.abi_decl, args.abi_base) \
        if args.abi_decl is not None else None
    verdict = judge_mutants(run, args.rows, mutants_of(args),
                            args.change_kind, abi, notes, args.abi_base)
    text = table.mutants_text(verdict)
    write_atomic(os.path.join(out, 'mutants.md'), text)
    write_atomic(os.path.join(out, 'mutants.json'),
                 records.dumps(records.mutants_record(verdict)))
    print(text, end='')
    return 0 if all(verdict.ok) else 1


# -- one results directory, or the merge of shards ------------------------

def tree_of(results: str, args, cells_of: List[Result]) -> Optional[str]:
    """--tree, else meta.json's, else the one the results name."""
    if args.tree:
        return args.tree
    try:
        return Meta.read(results).tree
    except MetaError:
        pass
    trees = sorted({r.row.tree for r in cells_of
                    if r.row and r.row.tree})
    return ', '.join(trees) or None


def single(args) -> int:
    run = directory_run(args.results, None)
    if args.mode == 'gate':
        results = [run.result(v, r) for v in args.variants
                   for r in args.rows]
        run.tree = tree_of(args.results, args, results)
        cells = gate_cells(run, args.variants, args.rows, args.change_kind)
        return write_gate(args.results, run, cells, args.variants,
                          args.rows, [], kind=args.change_kind)
    run.tree = args.tree = tree_of(args.results, args, [])
    return write_mutants(run, args, args.results, [])


def read_shards(args) -> Tuple[ShardResults, List[str], Optional[str]]:
    """-> (variant, row) -> result, notes, tree, for shards of one tree.
    Raises Refused when the shards do not belong together."""
    metas, notes = read_metas(args.merge, args.mode)
    same(metas, ['tree'])
    tree = metas[0][1].tree if metas else None
    if args.tree and metas and tree != args.tree:
        raise Refused('the shards are of tree %s, not --tree %s' % (
            tree, args.tree))
    return load_shards(metas), notes, tree or args.tree


def merge(args) -> int:
    if args.expect_trees is None:
        found, notes, tree = read_shards(args)
        return merge_tree(args, found, notes, tree, args.out)
    if args.tree and list(args.expect_trees) != [args.tree]:
        raise UsageError('--tree %s, but --expect-rows names the trees %s'
                         % (args.tree, ' '.join(args.expect_trees)))
    metas, notes = read_metas(args.merge, args.mode)
    trees = {}
    for d, meta in metas:
        trees.setdefault(meta.tree, []).append((d, meta))
    found = {t: load_shards(m) for t, m in trees.items()}
    extra = ['shards of tree %s are not expected here, not counted: %s' % (
        t, ', '.join(d for d, _ in m))
        for t, m in trees.items() if t not in args.expect_trees]
    if len(args.expect_trees) == 1:
        # One tree: the output of one run of that tree, to the letter.
        tree, args.rows = next(iter(args.expect_trees.items()))
        args.tree = tree
        return merge_tree(args, found.get(tree, {}), notes + extra, tree,
                          args.out)
    return merge_trees(args, found, notes + extra)


CLOSING_RE = re.compile(r'^(\d+) passed, (\d+) failed$')


def merge_trees(args, found: Dict[Optional[str], ShardResults],
                notes: List[str]) -> int:
    """Shards of several trees: one table per tree (each also written to
    OUT/<tree>/ as a run of that tree would write it), then OUT/'s files
    over every tree and one closing line and verdict."""
    passed = failed = 0
    texts, recs, junits = [], {}, []
    for tree, rows in args.expect_trees.items():
        sub = argparse.Namespace(**vars(args))
        sub.tree, sub.rows = tree, rows
        out = os.path.join(args.out, tree)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            merge_tree(sub, found.get(tree, {}), [], tree, out)
        text = buf.getvalue()
        print(text)
        texts.append(text)
        m = CLOSING_RE.match(text.rstrip('\n').splitlines()[-1])
        if not m:
            raise OSError('no closing line in the merge of tree %s' % tree)
        passed += int(m.group(1))
        failed += int(m.group(2))
        name = 'summary.json' if args.mode == 'gate' else 'mutants.json'
        with open(os.path.join(out, name), encoding='utf-8') as f:
            recs[tree] = json.load(f)
        if args.mode == 'gate':
            junits.append(ET.parse(os.path.join(out, 'junit.xml')).getroot())
    end = '%d passed, %d failed' % (passed, failed)
    tail = table.trees_tail(args.mode, list(args.expect_trees), notes, end)
    print(tail, end='')
    record = {'mode': args.mode, 'trees': recs, 'notes': notes,
              'closing': end, 'shards': args.merge}
    md = 'summary.md' if args.mode == 'gate' else 'mutants.md'
    write_atomic(os.path.join(args.out, md), '\n'.join(texts + [tail]))
    write_atomic(os.path.join(args.out, 'summary.json' if args.mode ==
                              'gate' else 'mutants.json'),
                 records.dumps(record))
    if args.mode == 'gate':
        write_atomic(os.path.join(args.out, 'junit.xml'),
                     merge_junit('clone3 gate', junits))
    return 0 if failed == 0 else 1


def merge_tree(args, found: ShardResults, notes: List[str],
               tree: Optional[str], out: str) -> int:
    args.tree = tree
    shards = ShardRun(tree, found)
    run = shards.run()
    os.makedirs(out, exist_ok=True)
    if args.mode == 'gate':
        cells = gate_cells(run, args.variants, args.rows, args.change_kind)
        notes += shards.unasked()
        return write_gate(out, run, cells, args.variants, args.rows, notes,
                          {'shards': args.merge}, args.change_kind)
    # judge_mutants reads the cells while it judges: list the extras first
    for variant, _ in mutants_of(args):
        for row in args.rows:
            shards.asked.add((variant, row))
    # base: the ABI diff's reference, when a shard holds it
    for row in args.rows if args.abi_decl is not None else []:
        shards.asked.add((args.abi_base, row))
    notes += shards.unasked()
    return write_mutants(run, args, out, notes)


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
