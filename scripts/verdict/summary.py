# SPDX-License-Identifier: GPL-2.0
"""What summarize.py does once its options are read: the rules over one
results directory or over the shards of a matrix (merged by results.py),
and the writers' files, summary.md, summary.json and junit.xml (gate) or
mutants.md and mutants.json (mutants), with the table printed.  Each
function returns the exit code: 0 every expectation holds, 1 one does
not; UsageError and results.Refused are for the caller to report.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

from atomic_write import write_atomic
from verdict import records, table
from verdict.junit import cells_junit, merge_junit
from verdict.model import Result, Run
from verdict.results import (Meta, MetaError, Refused, ShardResults,
                             ShardRun, directory_run, load_shards,
                             read_metas, same)
from verdict.rules import (AbiCheck, Cell, NoMutants, gate_cells,
                           judge_mutants, mutant_list)


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
