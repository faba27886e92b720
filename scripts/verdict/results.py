# SPDX-License-Identifier: GPL-2.0
"""A results directory read back into the result tree: a row's record
(<results>/<variant>/<row>.json, written by ktap-report.py) as a
model.Result, the meta.json that makes a results directory
self-describing (written by results_meta.py), and the shards of a
matrix (results directories of CI jobs) merged into one model.Run,
refused when they do not belong together.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from verdict.model import Result, Row, Run

META = 'meta.json'
META_FORMAT = 1
MODES = ('gate', 'mutants')
# What a shard must share with the others to be merged with them.
IDENTITY = ('series', 'suite', 'project')


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(65536), b''):
            h.update(block)
    return h.hexdigest()


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
    try:
        if not isinstance(data.get('programs'), dict):
            raise TypeError('programs')
        res.row = Row.from_json(variant, row, data)
    except (AttributeError, KeyError, TypeError, ValueError):
        res.why = 'malformed result %s' % path
    return res


def directory_run(results: str, tree: Optional[str]) -> Run:
    """The run of one results directory."""
    def lookup(variant: str, row: str) -> Result:
        return load_result(results, variant, row)
    return Run(tree, lookup)


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
                if res.row is None:
                    continue
                meta.results['%s/%s' % (variant, row)] = {
                    'status': res.status,
                    'sha256': file_sha256(res.path)}
        return meta


# -- the shards of a matrix -------------------------------------------------

class Refused(Exception):
    """Shards that must not be merged: exit 2, one line."""


Shard = Tuple[str, Meta]
ShardResults = Dict[Tuple[str, str], Result]


def read_metas(dirs: List[str], mode: str) -> Tuple[List[Shard], List[str]]:
    """The meta.json of every shard (a shard without one is a note: its
    results count as missing).  Raises Refused when the shards are of
    another mode, or of different suite or project commits."""
    metas: List[Shard] = []
    notes: List[str] = []
    for d in dirs:
        try:
            metas.append((d, Meta.read(d)))
        except MetaError as e:
            notes.append('shard not used: %s' % e)
    for d, meta in metas:
        if meta.mode != mode:
            raise Refused('shard %s is a %s run, not %s' % (d, meta.mode,
                                                            mode))
    same(metas, [k for k in IDENTITY if k != 'series'])
    return metas, notes


def same(metas: List[Shard], keys: List[str]) -> None:
    """Refused unless every shard has the same value of each key."""
    for key in keys:
        seen: Dict[Optional[str], str] = {}
        for d, meta in metas:
            seen.setdefault(getattr(meta, key), d)
        if len(seen) > 1:
            (a, da), (b, db) = list(seen.items())[:2]
            raise Refused('shards of different %s: %s in %s, %s in %s' % (
                key if key == 'tree' else key + ' commits', a, da, b, db))


def load_shards(metas: List[Shard]) -> ShardResults:
    """(variant, row) -> result, from the shards of one tree (their series
    commit is checked here).  A result changed after its meta.json is a
    result with why set; one row with two different results is
    Refused."""
    same(metas, ['series'])
    found: ShardResults = {}
    origin: Dict[Tuple[str, str], Tuple[str, str]] = {}
    for d, meta in metas:
        for key, entry in sorted(meta.results.items()):
            variant, _, row = key.partition('/')
            res = load_result(d, variant, row)
            digest = None
            if res.row is not None:
                digest = file_sha256(res.path)
                if not isinstance(entry, dict) or \
                        digest != entry.get('sha256'):
                    res = Result(variant, row, res.path,
                                 why='result %s changed after its shard\'s '
                                 'meta.json was written' % res.path)
            k = (variant, row)
            if k in found:
                if digest is None or origin[k][1] != digest:
                    raise Refused('%s is in two shards with different '
                                  'results: %s and %s' % (
                                      key, origin[k][0], d))
                continue
            found[k] = res
            origin[k] = (d, digest or '')
    return found


@dataclass
class ShardRun:
    """The run that the shards of one tree make: what is asked of it is
    noted, so that what they hold and nobody asked for can be told."""
    tree: Optional[str]
    found: ShardResults
    asked: Set[Tuple[str, str]] = field(default_factory=set)

    def lookup(self, variant: str, row: str) -> Result:
        self.asked.add((variant, row))
        if (variant, row) in self.found:
            return self.found[(variant, row)]
        return Result(variant, row, result_path('<shards>', variant, row),
                      why='no shard has a result for %s/%s' % (variant,
                                                               row))

    def run(self) -> Run:
        return Run(self.tree, self.lookup)

    def unasked(self) -> List[str]:
        extra = sorted('%s/%s' % k for k in self.found
                       if k not in self.asked)
        if not extra:
            return []
        return ['results in the shards that are not expected here, not '
                'counted: ' + ', '.join(extra)]
