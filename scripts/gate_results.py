# SPDX-License-Identifier: GPL-2.0
"""The one home of what the result readers share: the names of rows, the
rule that says which subtests need the flag, the loading of a result
record (<results>/<variant>/<row>.json, written by ktap-report.py) and the
meta.json that makes a results directory self-describing (written by
results_meta.py, read by summarize.py --merge).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

NAME_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')
# An ABI word: no '-', which separates it from the arch in a row name.
ABI_RE = re.compile(r'^[A-Za-z0-9_.+]+$')
STATUSES = ('pass', 'fail', 'error')
META = 'meta.json'
META_FORMAT = 1
MODES = ('gate', 'mutants')
# What a shard must share with the others to be merged with them.
IDENTITY = ('series', 'suite', 'project')


def row_label(name: str) -> str:
    """x86_64 -> x86_64, x86_64-ia32 -> x86_64/ia32 (arch names have no
    '-', so the first one separates the compat ABI)."""
    arch, sep, abi = name.partition('-')
    return '%s/%s' % (arch, abi) if sep else name


def needs_flag(subtest: str) -> bool:
    """A subtest needs CLONE_CLEAR_SIGHAND when one dot-separated component
    of its harness name (fixture[.variant].test) is exactly 'flag' or
    starts with 'flag_': flag_abi.alone_accepted,
    spawn.flag.resets_caught_handlers_before_exec,
    flag_child.fork.resets_every_handler; not spawn.classic.x, not
    global.flagged."""
    return any(part == 'flag' or part.startswith('flag_')
               for part in subtest.split('.'))


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(65536), b''):
            h.update(block)
    return h.hexdigest()


@dataclass
class Result:
    """One row's result record, or why there is none (why is then set)."""
    variant: str
    row: str
    path: str
    data: Optional[dict] = None
    why: Optional[str] = None

    @property
    def status(self) -> str:
        return self.data['status'] if self.data else 'missing'

    @property
    def xml_path(self) -> str:
        return self.path[:-len('.json')] + '.xml'


def result_path(results: str, variant: str, row: str) -> str:
    return os.path.join(results, variant, row + '.json')


def load_result(results: str, variant: str, row: str) -> Result:
    path = result_path(results, variant, row)
    res = Result(variant, row, path)
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except FileNotFoundError:
        res.why = 'no result (%s missing)' % path
        return res
    except (OSError, ValueError) as e:
        res.why = 'unreadable result %s: %s' % (path, e)
        return res
    progs = data.get('programs') if isinstance(data, dict) else None
    if not isinstance(progs, dict) or data.get('status') not in STATUSES \
            or not all(isinstance(p, dict) and
                       isinstance(p.get('subtests', {}), dict)
                       for p in progs.values()):
        res.why = 'malformed result %s' % path
        return res
    res.data = data
    return res


class MetaError(Exception):
    pass


@dataclass
class Meta:
    """<results>/meta.json: what the run was (mode, tree, rows, variants,
    the commits of the series, the suite and this project) and what it
    wrote: "variant/row" -> status and the SHA-256 of its JSON."""
    mode: str
    tree: Optional[str]
    rows: List[str]
    variants: List[str]
    series: str
    suite: str
    project: str
    results: Dict[str, Dict[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {'format': META_FORMAT, 'mode': self.mode, 'tree': self.tree,
                'rows': self.rows, 'variants': self.variants,
                'series': self.series, 'suite': self.suite,
                'project': self.project, 'results': self.results}

    @classmethod
    def read(cls, directory: str) -> 'Meta':
        path = os.path.join(directory, META)
        try:
            with open(path, encoding='utf-8') as f:
                data = json.load(f)
        except FileNotFoundError:
            raise MetaError('%s has no %s: its run did not finish' %
                            (directory, META))
        except (OSError, ValueError) as e:
            raise MetaError('unreadable %s: %s' % (path, e))
        try:
            if data.get('format') != META_FORMAT:
                raise MetaError('%s: format %r, expected %d' % (
                    path, data.get('format'), META_FORMAT))
            meta = cls(**{k: data[k] for k in (
                'mode', 'tree', 'rows', 'variants', 'series', 'suite',
                'project', 'results')})
        except (AttributeError, KeyError, TypeError) as e:
            raise MetaError('malformed %s: %s' % (path, e))
        if meta.mode not in MODES or not all(
                isinstance(x, list) and all(isinstance(i, str) for i in x)
                for x in (meta.rows, meta.variants)) or \
                not isinstance(meta.results, dict):
            raise MetaError('malformed %s' % path)
        return meta

    @classmethod
    def scan(cls, directory: str, mode: str, tree: Optional[str],
             rows: List[str], variants: List[str], series: str, suite: str,
             project: str) -> 'Meta':
        """The meta of a results directory as it is now."""
        meta = cls(mode, tree, rows, variants, series, suite, project)
        for variant in variants:
            for row in rows:
                res = load_result(directory, variant, row)
                if res.data is None:
                    continue
                meta.results['%s/%s' % (variant, row)] = {
                    'status': res.status,
                    'sha256': file_sha256(res.path)}
        return meta
