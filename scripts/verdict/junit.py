# SPDX-License-Identifier: GPL-2.0
"""JUnit XML of one row of the matrix (a model.Row): one testsuite
per program, one testcase per subtest, and a 'gate' testsuite with one
error when the row is an error.

Testsuite names: "<variant>.<row>.<program>" (base.arm64.clone3_fuzz) as
before; with a tree, "<tree> <variant> <row>.<program>" (6.1 patched
x86_64/ia32.clone3_fuzz).  Every testsuite has the properties variant,
row and, with a tree, tree.  merge_junit() puts the testsuites of many
rows into one document; cells_junit() those of a gate's cells.  A writer:
it judges nothing.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Iterable, List, Optional

from verdict.console import RUN_RE, STATUS_RE
from verdict.model import Program, Row, Status
from verdict.rules import Cell

HEADER = b'<?xml version="1.0" encoding="UTF-8"?>\n'


def row_title(variant: str, label: str, tree: Optional[str]) -> str:
    if tree:
        return '%s %s %s' % (tree, variant, label)
    return '%s.%s' % (variant, label)


def testcase(suite: ET.Element, classname: str, name: str, result: Status,
             message: str, seconds: float,
             text: Optional[str] = None) -> Status:
    case = ET.SubElement(suite, 'testcase', classname=classname, name=name,
                         time='%.3f' % seconds)
    if result == Status.FAIL:
        fail = ET.SubElement(case, 'failure', message=message, type='fail')
        fail.text = text
    elif result in (Status.TIMEOUT, Status.ERROR):
        ET.SubElement(case, 'error', message=message, type=result.value)
    elif result == Status.SKIP:
        ET.SubElement(case, 'skipped', message=message)
    return result


def properties(suite: ET.Element, row: Row) -> None:
    props = ET.SubElement(suite, 'properties')
    values = [('variant', row.variant), ('row', row.label)]
    if row.tree:
        values.append(('tree', row.tree))
    for name, value in values:
        ET.SubElement(props, 'property', name=name, value=value)


def set_counts(elem: ET.Element, results: List[Status]) -> None:
    elem.set('tests', str(len(results)))
    elem.set('failures', str(results.count(Status.FAIL)))
    elem.set('errors', str(results.count(Status.TIMEOUT) +
                           results.count(Status.ERROR)))
    elem.set('skipped', str(results.count(Status.SKIP)))


def program_suite(root: ET.Element, row: Row, title: str,
                  prog: Program) -> List[Status]:
    seconds = (prog.duration_ms or 0) / 1000.0
    classname = '%s.%s' % (title, prog.name)
    suite = ET.SubElement(root, 'testsuite', name=classname,
                          time='%.3f' % seconds)
    properties(suite, row)
    results: List[Status] = []
    subs = prog.subtests
    for sub, res in subs.items():
        diag = prog.diag.get(sub, [])
        said = [line.lstrip('# ').strip() for line in diag
                if line.startswith('#') and not RUN_RE.match(line) and
                not STATUS_RE.match(line)]
        msg = said[0] if said else '%s: %s' % (sub, res.value)
        results.append(testcase(suite, classname, sub, res, msg,
                                seconds if len(subs) == 1 else 0.0,
                                '\n'.join(diag)))
    # The program's own verdict, when no subtest tells it.
    if not subs or (prog.result in (Status.FAIL, Status.TIMEOUT) and
                    Status.FAIL not in results):
        msg = prog.detail or prog.result.value
        results.append(testcase(suite, classname, prog.name, prog.result,
                                msg, seconds if not subs else 0.0))
    out = ET.SubElement(suite, 'system-out')
    out.text = '\n'.join(prog.output)
    set_counts(suite, results)
    return results


def gate_error_suite(root: ET.Element, title: str, reason: str,
                     row: Optional[Row] = None) -> List[Status]:
    """The row's own error: one testcase 'gate'."""
    suite = ET.SubElement(root, 'testsuite', name='%s.gate' % title,
                          time='0.000')
    if row is not None:
        properties(suite, row)
    results = [testcase(suite, title, 'gate', Status.ERROR, reason, 0)]
    set_counts(suite, results)
    return results


def to_bytes(root: ET.Element) -> bytes:
    ET.indent(root)
    return HEADER + ET.tostring(root, encoding='utf-8') + b'\n'


def junit(row: Row) -> bytes:
    title = row_title(row.variant, row.label, row.tree)
    root = ET.Element('testsuites', name='clone3 %s' % title)
    results: List[Status] = []
    for prog in row.programs.values():
        results += program_suite(root, row, title, prog)
    if row.status == Status.ERROR:
        results += gate_error_suite(root, title, row.reason, row)
    set_counts(root, results)
    return to_bytes(root)


def merge_junit(name: str, documents: Iterable[ET.Element],
                errors: Iterable[tuple] = ()) -> bytes:
    """One <testsuites> holding every testsuite of the given documents,
    and one error testsuite per (title, reason) in errors (a row that
    has no result)."""
    root = ET.Element('testsuites', name=name)
    totals = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
    for doc in documents:
        suites = [doc] if doc.tag == 'testsuite' else \
            doc.findall('testsuite')
        for suite in suites:
            root.append(suite)
            for key in totals:
                totals[key] += int(suite.get(key, '0'))
    for title, reason in errors:
        gate_error_suite(root, title, reason)
        totals['tests'] += 1
        totals['errors'] += 1
    for key, value in totals.items():
        root.set(key, str(value))
    return to_bytes(root)


def cells_junit(cells: List[Cell], tree: Optional[str]) -> bytes:
    """The testsuites of every row of a gate; a row without a readable
    JUnit file is one error testsuite."""
    docs, errors = [], []
    for c in cells:
        try:
            docs.append(ET.parse(c.result.xml_path).getroot())
            continue
        except (OSError, ET.ParseError):
            pass
        errors.append((row_title(c.variant, c.label, tree),
                       c.result.why or 'no JUnit file %s' %
                       c.result.xml_path))
    return merge_junit('clone3 gate' + (' ' + tree if tree else ''), docs,
                       errors)
