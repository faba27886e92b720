#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What clone3 does differently from one tree's kernel to another's, from
the '# abi:' lines of clone3_abi_probe on each row (scripts/tree-diff.sh
boots the kernels; Documentation/abi-diff.md, "Between trees").

  tree_diff.py --from 6.1 --from-results DIR --to 6.12 --to-results DIR
               --rows "x86_64 x86_64-ia32 ..." [--variant patched]
               [--out FILE]

Reads <DIR>/<variant>/<row>.ktap of both trees and prints one table: each
difference once, with the inputs it touches and the rows it shows on
("every row" when it shows on all of them), then each row's own table.
With --out, writes FILE (markdown) and FILE's .json beside it.

Exit 0 when the table is made (whether or not anything differs), 2 on
bad input: a name that is not a row or tree name, a missing results
directory, a row without probe lines on either side (the other rows are
still compared and printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, List, Tuple

from abi_diff import (ROW_RE, BadInput, Declaration, RowDiff, compare,
                      md_cell, read_probe, row_text)
from atomic_write import write_atomic


def compare_rows(a_dir: str, b_dir: str, variant: str, rows: List[str],
                 left: str, right: str) -> List[RowDiff]:
    """Each row of tree A against the same row of tree B: no declaration,
    so every difference is listed (as UNDECLARED, which here only means
    'seen')."""
    out = []
    for row in rows:
        try:
            a = read_probe(os.path.join(a_dir, variant, row + '.ktap'))
            b = read_probe(os.path.join(b_dir, variant, row + '.ktap'))
        except BadInput as e:
            d = RowDiff(row)
            d.error = str(e)
            out.append(d)
            continue
        out.append(compare(row, a, b, Declaration(), left, right))
    return out


def merged(diffs: List[RowDiff]) -> List[dict]:
    """The differences of every row, each once: the same text on several
    rows is one entry, with the union of its inputs and its rows."""
    seen: Dict[str, dict] = {}
    for d in diffs:
        for g in d.groups:
            e = seen.setdefault(g['seen'], {'seen': g['seen'], 'labels': [],
                                            'inputs': [], 'rows': []})
            if g['label'] not in e['labels']:
                e['labels'].append(g['label'])
            e['inputs'] += [k for k in g['inputs'] if k not in e['inputs']]
            if d.row not in e['rows']:
                e['rows'].append(d.row)
    return list(seen.values())


def rows_cell(rows: List[str], compared: List[str]) -> str:
    if len(compared) > 1 and sorted(rows) == sorted(compared):
        return 'every row (%d)' % len(rows)
    return ' '.join(rows)


def render(diffs: List[RowDiff], left: str, right: str,
           variant: str) -> Tuple[str, dict]:
    compared = [d.row for d in diffs if not d.error]
    entries = merged(diffs)
    lines = ['# clone3 from %s to %s' % (left, right), '',
             'The %s kernel of each tree, the same probe on both, on the '
             'rows %s.' % (variant, ' '.join(d.row for d in diffs)), '']
    if entries:
        lines += ['| what changed | inputs | rows |', '|---|---|---|']
        for e in entries:
            lines.append('| %s | %s | %s |' % (
                md_cell(e['seen']), md_cell('; '.join(e['labels'])),
                rows_cell(e['rows'], compared)))
    else:
        lines.append('no difference on any row compared')
    lines.append('')
    for d in diffs:
        lines += row_text(d, left, right, False)
    errors = [d for d in diffs if d.error]
    verdict = '%d difference(s) on %d of %d rows compared' % (
        len(entries), len({r for e in entries for r in e['rows']}),
        len(compared))
    if errors:
        verdict += '; not compared: ' + ' '.join(d.row for d in errors)
    lines.append('tree-diff: %s -> %s: %s' % (left, right, verdict))
    record = {'from': left, 'to': right, 'variant': variant,
              'changes': entries,
              'rows': {d.row: d.to_json() for d in diffs}}
    return '\n'.join(lines) + '\n', record


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--from', dest='left', required=True)
    p.add_argument('--to', dest='right', required=True)
    p.add_argument('--from-results', required=True)
    p.add_argument('--to-results', required=True)
    p.add_argument('--rows', required=True)
    p.add_argument('--variant', default='patched')
    p.add_argument('--out')
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    rows = args.rows.split()
    try:
        if not rows:
            raise BadInput('--rows is empty')
        for name in rows + [args.left, args.right, args.variant]:
            if not ROW_RE.match(name):
                raise BadInput('bad name %r' % name)
        for d in (args.from_results, args.to_results):
            if not os.path.isdir(d):
                raise BadInput('no results directory at %s' % d)
    except BadInput as e:
        print('tree_diff: error: %s' % e, file=sys.stderr)
        return 2
    diffs = compare_rows(args.from_results, args.to_results, args.variant,
                         rows, args.left, args.right)
    text, record = render(diffs, args.left, args.right, args.variant)
    if args.out:
        write_atomic(args.out, text)
        write_atomic(os.path.splitext(args.out)[0] + '.json',
                     json.dumps(record, indent=2) + '\n')
    print(text, end='')
    for d in diffs:
        if d.error:
            print('tree_diff: error: %s: %s' % (d.row, d.error),
                  file=sys.stderr)
    return 2 if any(d.error for d in diffs) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
