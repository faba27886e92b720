#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one owner of the gate's matrix: arches x trees (x variants).

Every arch, tree and their defaults come from data, read and checked
here and nowhere else:

  qemu-images/<arch>/qemu.conf   the guest (KEY=value; ARCH_KEYS below)
  qemu-images/<arch>/config      its Kconfig fragment
  qemu-images/<arch>/<V.P>.config   a fragment for Linux V.P and later
  qemu-images/common.<V.P>.config   the same, for every guest
  trees/<tree>/source.conf       where the tree comes from (TREE_KEYS)
  trees/<tree>/revert/series     how its base is made, when it has the flag
  trees/<tree>/port/             its ports: a file named like a patch of
                                 patches/ or patches/mutants/ replaces it
                                 there, and drop lists the series patches
                                 it does not apply (NAME  # reason)
  patches/mutants/*.patch        Killed-on: lines (which rows see a mutant)

The shell scripts source qemu.conf and source.conf as they are (a
process start per lookup would cost every boot); `matrix.py check`,
which every gate runs first, makes sure that sourcing them is harmless:
only the known keys, each once, with values of the shape below and
nothing the shell would expand.  A bad file is one line naming the file
and the key, and exit 2.

usage: matrix.py check                 check every data file, and every
                                       change (patches/, changes/*/)
       matrix.py arches                every arch, in the default order
       matrix.py trees                 every tree, oldest first
       matrix.py default-tree          the tree a run takes without KERNEL
       matrix.py check-plan            what make check runs where (and
                                       each change of changes/ with it)
       matrix.py packages              the Debian packages of every arch
                                       and tree (.ci/run installs them)
       matrix.py ci [--write]          the CI pipelines' matrices: check
                                       them (exit 1 when stale) or rewrite
       matrix.py change DIR            check one change directory (CHANGE=
                                       DIR: series, abi-change, base/,
                                       mutants/); the gate runs it first
       matrix.py spared ARCH           the mutants of patches/mutants whose
                                       Killed-on: line leaves ARCH out
"""

import os
import re
import sys
from typing import Dict, List, NamedTuple, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A value: one word, or a double-quoted string of words, with nothing the
# shell would expand or split on when qemu.conf is sourced.
SAFE = r'[A-Za-z0-9_.,:/=+@%-]'
LINE = re.compile(r'^([A-Z][A-Z0-9_]*)=(' + SAFE + r'*|"(?:' + SAFE +
                  r'| )*")$')
PKG = r'[a-z0-9][a-z0-9+.-]+'
WORD = r'[A-Za-z0-9_.-]+'

# Each key of qemu.conf: the pattern its value must match (after the
# quotes are taken off).  Every key must be there; an empty value is
# written "".
ARCH_KEYS = {
    'KARCH': r'[a-z0-9_]+',            # the kernel's ARCH=
    'SRCARCH': r'[a-z0-9_]+',          # its directory under arch/
    'CROSS_COMPILE': r'[a-z0-9_]+(-[a-z0-9_]+)*-',
    'CC_PKG': PKG,                     # Debian package of the compiler
    'LIBC_PKG': PKG,                   # ... and of its static C library
    'DEB_ARCH': r'[a-z0-9]+',          # Debian's name of the arch (armhf)
    'DEB_SUITE': r'([a-z0-9-]+)?',     # the release of its packages, or ""
    'GLIBC_SUITE': r'[a-z0-9-]+',      # the release of the guest's glibc
    'IMAGE': r'[A-Za-z0-9_./-]+',      # the image, in the build directory
    'QEMU_BIN': r'qemu-system-[a-z0-9_]+',
    'QEMU_PKG': PKG,
    'MACHINE': r'[A-Za-z0-9_.,=-]+',
    'CPU': r'[A-Za-z0-9_.,=+-]+',
    'MEM': r'[0-9]+[MG]',
    'SMP': r'[1-8]',                   # CPUs: programs run side by side
    'CONSOLE': r'[A-Za-z0-9]+',
    'BIOS': r'(' + WORD + r')?',
    'QEMU_ARGS': r'(' + SAFE + r'| )*',
    'CMDLINE': r'(' + SAFE + r'| )*',
    'COMPAT_ARCH': r'([a-z0-9_]+)?',   # an arch whose suite runs too
    'COMPAT_ABI': r'([a-z0-9]+)?',     # the compat row's suffix
}

# Each key of trees/<tree>/source.conf, and whether it must be there.
TREE_KEYS = {
    'PKG': (PKG, True),                # the Debian package of the source
    'TARBALL': (r'/?[A-Za-z0-9_./+-]+\.tar\.xz', True),
    'SUITE': (r'([a-z0-9-]+)?', False),  # another Debian release, or ""
    'DEFAULT': (r'[01]', False),       # 1: the tree without KERNEL=
}

TREE_NAME = re.compile(r'^[0-9]+\.[0-9]+$')
VERSION_FRAGMENT = re.compile(r'^([0-9]+)\.([0-9]+)\.config$')


class DataError(Exception):
    """A data file that is wrong: one line, naming the file and key."""


class Arch(NamedTuple):
    name: str
    conf: Dict[str, str]

    @property
    def compat_row(self) -> Optional[str]:
        """The compat row's name (x86_64-ia32), or None."""
        if not self.conf['COMPAT_ABI']:
            return None
        return self.name + '-' + self.conf['COMPAT_ABI']

    @property
    def rows(self) -> List[str]:
        return [self.name] + ([self.compat_row] if self.compat_row else [])


class Tree(NamedTuple):
    name: str
    conf: Dict[str, str]

    @property
    def version(self) -> Tuple[int, int]:
        return version(self.name)


def version(name: str) -> Tuple[int, int]:
    major, minor = name.split('.')
    return int(major), int(minor)


def rel(path: str) -> str:
    """PATH as the messages name it: from the top of its checkout (a path
    outside it as it is)."""
    out = os.path.relpath(path, _root)
    return path if out.startswith('..') else out


_root = ROOT


def read_conf(path: str, keys: Dict[str, Tuple[str, bool]]) -> Dict[str, str]:
    """KEY=value lines of PATH, each key checked against KEYS (key ->
    (pattern, required)); comments and blank lines are skipped."""
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise DataError(f'{rel(path)}: cannot read: {e.strerror}')
    conf: Dict[str, str] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        m = LINE.match(line)
        if not m:
            raise DataError(f'{rel(path)}:{n}: not KEY=value (one word, or '
                            f'"words" with no $, `, \\, quote or ;): {line}')
        key, value = m.group(1), m.group(2)
        if key not in keys:
            raise DataError(f'{rel(path)}:{n}: unknown key {key}; known: '
                            f'{" ".join(sorted(keys))}')
        if key in conf:
            raise DataError(f'{rel(path)}:{n}: key {key} is given twice')
        if value.startswith('"'):
            value = value[1:-1]
        if not re.fullmatch(keys[key][0], value):
            raise DataError(f'{rel(path)}:{n}: {key}={value!r} is not of '
                            f'the form {keys[key][0]}')
        conf[key] = value
    missing = [k for k, (_, required) in keys.items()
               if required and k not in conf]
    if missing:
        raise DataError(f'{rel(path)}: missing key {missing[0]}')
    return conf


class Matrix:
    """The arches and trees found under ROOT, every file checked."""

    def __init__(self, root: str = ROOT):
        global _root
        self.root = _root = root
        self.arches = self._read_arches()
        self.trees = self._read_trees()

    def _read_arches(self) -> Dict[str, Arch]:
        base = os.path.join(self.root, 'qemu-images')
        arches: Dict[str, Arch] = {}
        for name in sorted(os.listdir(base)):
            d = os.path.join(base, name)
            if not os.path.isdir(d):
                if name != 'common.config' and not \
                        re.fullmatch(r'common\.[0-9]+\.[0-9]+\.config', name):
                    raise DataError(f'{rel(d)}: unknown file; qemu-images/ '
                                    'holds common.config, common.<VERSION>.'
                                    '<PATCHLEVEL>.config and a directory '
                                    'per arch')
                continue
            if name == 'init':
                continue
            if not re.fullmatch(r'[a-z0-9_]+', name):
                raise DataError(f'{rel(d)}: an arch is named with a-z, 0-9 '
                                f'and _ only')
            for f in sorted(os.listdir(d)):
                if f not in ('qemu.conf', 'config') and \
                        not VERSION_FRAGMENT.match(f):
                    raise DataError(f'{rel(os.path.join(d, f))}: unknown '
                                    'file; an arch holds qemu.conf, config '
                                    'and <VERSION>.<PATCHLEVEL>.config')
            if not os.path.isfile(os.path.join(d, 'config')):
                raise DataError(f'{rel(d)}/config: missing (the arch\'s '
                                'Kconfig fragment)')
            conf = read_conf(os.path.join(d, 'qemu.conf'),
                             {k: (v, True) for k, v in ARCH_KEYS.items()})
            arches[name] = Arch(name, conf)
        if not arches:
            raise DataError(f'{rel(base)}: no arch')
        for a in arches.values():
            path = rel(os.path.join(base, a.name, 'qemu.conf'))
            compat, abi = a.conf['COMPAT_ARCH'], a.conf['COMPAT_ABI']
            if bool(compat) != bool(abi):
                raise DataError(f'{path}: COMPAT_ARCH and COMPAT_ABI are '
                                'both set or both empty')
            if compat and compat not in arches:
                raise DataError(f'{path}: COMPAT_ARCH={compat} is no arch '
                                f'of qemu-images/')
            if compat == a.name:
                raise DataError(f'{path}: COMPAT_ARCH is the arch itself')
        return arches

    def _read_trees(self) -> Dict[str, Tree]:
        base = os.path.join(self.root, 'trees')
        trees: Dict[str, Tree] = {}
        for name in os.listdir(base):
            d = os.path.join(base, name)
            if not os.path.isdir(d):
                continue
            if not TREE_NAME.match(name):
                raise DataError(f'{rel(d)}: a tree is named '
                                '<VERSION>.<PATCHLEVEL>, such as 6.12')
            conf = read_conf(os.path.join(d, 'source.conf'), TREE_KEYS)
            series = os.path.join(d, 'revert', 'series')
            if os.path.isdir(os.path.join(d, 'revert')):
                for p in series_entries(series):
                    if not os.path.isfile(os.path.join(d, 'revert', p)):
                        raise DataError(f'{rel(series)}: {p} is missing')
            if os.path.isdir(os.path.join(d, 'port')):
                self._check_port(os.path.join(d, 'port'))
            trees[name] = Tree(name, conf)
        if not trees:
            raise DataError(f'{rel(base)}: no tree')
        defaults = [t for t in trees.values() if t.conf.get('DEFAULT') == '1']
        if len(defaults) != 1:
            raise DataError(f'{rel(base)}: exactly one tree must have '
                            f'DEFAULT=1 in its source.conf, not '
                            f'{len(defaults)}')
        return dict(sorted(trees.items(), key=lambda kv: kv[1].version))

    def _check_port(self, port: str) -> None:
        """A tree's port/: each patch there stands for a patch of patches/
        or patches/mutants/ of the same name (a mutant's port keeps its
        Breaks: and Killed-on: lines, which the summary reads from the
        original), and drop names series patches, each with a reason."""
        patches = os.path.join(self.root, 'patches')
        series = series_entries(os.path.join(patches, 'series'))
        mutants = os.path.join(patches, 'mutants')
        dropped = []
        drop = os.path.join(port, 'drop')
        if os.path.isfile(drop):
            with open(drop, encoding='utf-8') as f:
                lines = f.read().splitlines()
            for n, line in enumerate(lines, 1):
                if not line.strip() or line.lstrip().startswith('#'):
                    continue
                m = re.fullmatch(r'(\S+)\s+#\s*(\S.*)', line.strip())
                if not m:
                    raise DataError(f'{rel(drop)}:{n}: not "NAME  # reason": '
                                    f'{line}')
                if m.group(1) not in series:
                    raise DataError(f'{rel(drop)}:{n}: {m.group(1)} is no '
                                    'patch of patches/series')
                dropped.append(m.group(1))
        for f in sorted(os.listdir(port)):
            path = os.path.join(port, f)
            if f == 'drop':
                continue
            if f in series or (f.endswith('.patch') and
                               os.path.isfile(os.path.join(patches, f))):
                if f in dropped:
                    raise DataError(f'{rel(path)}: {f} is dropped on this '
                                    'tree (port/drop): a port of it is '
                                    'never applied')
                continue
            original = os.path.join(mutants, f)
            if not f.endswith('.patch') or not os.path.isfile(original):
                raise DataError(f'{rel(path)}: named like no patch of '
                                'patches/ or patches/mutants/ (a port takes '
                                'the name of the patch it replaces)')
            if mutant_lines(path) != mutant_lines(original):
                raise DataError(f'{rel(path)}: its Breaks: and Killed-on: '
                                'lines differ from those of '
                                f'{rel(original)}')

    @property
    def default_tree(self) -> str:
        return next(t.name for t in self.trees.values()
                    if t.conf.get('DEFAULT') == '1')

    def packages(self) -> List[str]:
        """Every arch's compiler, C library and QEMU, and the source of
        every tree the host's own release has, each once."""
        out: List[str] = []
        for a in self.arches.values():
            out += [a.conf['CC_PKG'], a.conf['LIBC_PKG'], a.conf['QEMU_PKG']]
        out += [t.conf['PKG'] for t in self.trees.values()
                if not t.conf.get('SUITE')]
        return list(dict.fromkeys(out))

    def killed_on_by_mutant(self) -> Dict[str, List[str]]:
        """The Killed-on: rows of each mutant of patches/mutants that has
        them, by the mutant's path, as the verdict reads them
        (verdict/rules.py, read_patch: the one reader of that line)."""
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from verdict.rules import read_patch
        d = os.path.join(self.root, 'patches', 'mutants')
        out = {}
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not f.endswith('.patch'):
                continue
            path = os.path.join(d, f)
            rows = read_patch(path, f).killed_on
            if rows:
                out[path] = rows
        return out

    def killed_on(self) -> List[List[str]]:
        """The Killed-on: rows of each mutant that has them."""
        return list(self.killed_on_by_mutant().values())

    def spared(self, arch: str) -> List[str]:
        """The mutants whose Killed-on: line does not name ARCH: they
        must survive there (make check's survivors step)."""
        if arch not in self.arches:
            raise DataError(f'{arch}: unknown arch; choose from: '
                            f'{" ".join(self.arches)}')
        return [p for p, rows in self.killed_on_by_mutant().items()
                if arch not in rows]

    def check_plan(self, host: str) -> Dict[str, object]:
        """Which arch make check gates on which tree: every arch once and
        every tree at least once.  The default tree holds the host's arch
        (the fault, rebuild and unprivileged tests run there), the arch
        that kills every mutant (the one every Killed-on: line names; the
        mutants step) and one that some row-bound mutant spares (its
        Killed-on: line does not name it: the survivors step runs the
        mutants that spare it there, which must survive; the host's arch
        where it can); the other arches go, one by one in the default
        order, to the tree with the fewest so far (the oldest on a
        tie)."""
        arches = list(self.arches)
        if host not in self.arches:
            host = arches[0]
        lists = self.killed_on()
        everywhere = [a for a in arches if all(a in k for k in lists)]
        mutant = host if not lists else (everywhere or [host])[0]
        spared = [a for a in arches if any(a not in k for k in lists)]
        survivor = host if host in spared else (spared or [host])[0]
        gate: Dict[str, List[str]] = {t: [] for t in self.trees}
        pinned = [host, mutant, survivor]
        for a in pinned:
            if a not in gate[self.default_tree]:
                gate[self.default_tree].append(a)
        for a in arches:
            if any(a in g for g in gate.values()):
                continue
            tree = min(gate, key=lambda t: len(gate[t]))
            gate[tree].append(a)
        return {'gate': gate, 'host': host, 'mutants': mutant,
                'survivors': survivor}


def other_changes(root: str) -> List[str]:
    """The change directories of changes/ (ours is patches/)."""
    changes = os.path.join(root, 'changes')
    if not os.path.isdir(changes):
        return []
    return sorted(os.path.join(changes, c) for c in os.listdir(changes)
                  if os.path.isdir(os.path.join(changes, c)))


def check_change(m: Matrix, path: str) -> None:
    """A change directory (CHANGE=dir, Documentation/extending.md, "Gate
    another change"): its series and every patch it lists, its declaration
    (abi-change, optional: none declares that nothing changes) parsed as
    scripts/abi_diff.py reads it, each base/<tree>/ named like a tree of
    trees/ with a series whose patches are there, and mutants/ holding
    only *.patch files.  A slip: DataError naming the file."""
    if not os.path.isdir(path):
        raise DataError(f'{path}: no such change directory')
    series = os.path.join(path, 'series')
    if not os.path.isfile(series):
        raise DataError(f'{rel(series)}: missing (a change lists its '
                        'patches in a series file)')
    for p in series_entries(series):
        if not os.path.isfile(os.path.join(path, p)):
            raise DataError(f'{rel(series)}: {p} is missing')
    decl = os.path.join(path, 'abi-change')
    if os.path.exists(decl):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import abi_diff
        try:
            abi_diff.Declaration.read(decl)
        except abi_diff.BadInput as e:
            raise DataError(f'the declaration does not parse: {e}')
    base = os.path.join(path, 'base')
    for t in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        d = os.path.join(base, t)
        if t not in m.trees:
            raise DataError(f'{rel(d)}: names no tree of trees/ (choose '
                            f'from: {" ".join(m.trees)})')
        for p in series_entries(os.path.join(d, 'series')):
            if not os.path.isfile(os.path.join(d, p)):
                raise DataError(f'{rel(d)}/series: {p} is missing')
    mutants = os.path.join(path, 'mutants')
    for f in sorted(os.listdir(mutants)) if os.path.isdir(mutants) else []:
        if not f.endswith('.patch'):
            raise DataError(f'{rel(os.path.join(mutants, f))}: a mutant '
                            'is a *.patch file')


def mutant_lines(path: str) -> List[str]:
    """The Breaks: and Killed-on: lines of a mutant's message."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('diff --git'):
                break
            if line.startswith(('Breaks:', 'Killed-on:')):
                out.append(line.rstrip())
    return out


def series_entries(path: str) -> List[str]:
    try:
        with open(path, encoding='utf-8') as f:
            return [ln.strip() for ln in f
                    if ln.strip() and not ln.lstrip().startswith('#')]
    except OSError:
        raise DataError(f'{rel(path)}: missing (a revert/ lists its '
                        'patches in a series file)')


# The CI pipelines: the lines of each file that hold the matrix, as
# (pattern, what goes there).  A line that matches is written anew from
# the matrix; a pattern that matches nothing is an error (the file was
# changed beyond what this knows).
def flow(items: List[str]) -> str:
    return '[' + ', '.join(items) + ']'


def quoted(items: List[str]) -> str:
    return '[' + ', '.join(f'"{i}"' for i in items) + ']'


def ci_lines(m: Matrix) -> Dict[str, List[Tuple[str, str]]]:
    trees = list(m.trees)
    arches = list(m.arches)
    # EXPECT: one line per tree (a folded scalar joins them with spaces).
    block = '\n'.join(' '.join(f'{t}:{a}' for a in arches) for t in trees)
    return {
        '.gitlab-ci.yml': [
            (r'^( *- KERNEL: )\[.*\]$', quoted(trees)),
            (r'^( *ARCHES: )\[.*\]$', flow(arches)),
            (r'^( *EXPECT(?:_MUTANTS)?: >-\n( *))[0-9].*(\n *[0-9].*)*$',
             block),
        ],
        '.github/workflows/gate.yml': [
            (r'^( *kernel: )\[.*\]$', quoted(trees)),
            (r'^( *arch: )\[.*\]$', flow(arches)),
            (r'^( *EXPECT(?:_MUTANTS)?: >-\n( *))[0-9].*(\n *[0-9].*)*$',
             block),
        ],
    }


def ci(m: Matrix, write: bool) -> int:
    stale = []
    for name, subs in ci_lines(m).items():
        path = os.path.join(m.root, name)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        new = text
        for pattern, value in subs:
            def put(mo: 're.Match[str]', value: str = value) -> str:
                # Continuation lines take the indent of the first.
                indent = mo.group(2) if mo.re.groups > 1 and \
                    mo.group(2) is not None and mo.group(2).strip() == '' \
                    else ''
                return mo.group(1) + value.replace('\n', '\n' + indent)
            new, n = re.subn(pattern, put, new, flags=re.M)
            if not n:
                raise DataError(f'{name}: no line matches {pattern!r}; the '
                                'matrix lines were changed by hand')
        if new != text:
            stale.append(name)
            if write:
                with open(path + '.tmp', 'w', encoding='utf-8') as f:
                    f.write(new)
                os.replace(path + '.tmp', path)
    if stale and not write:
        print(f'stale: {" ".join(stale)} disagree with the matrix; run '
              'scripts/matrix.py ci --write', file=sys.stderr)
        return 1
    for name in stale:
        print(f'wrote {name}')
    return 0


def main(argv: List[str]) -> int:
    usage = ('usage: matrix.py check|arches|trees|default-tree|check-plan|'
             'packages|ci [--write]|change DIR|spared ARCH')
    if not argv or argv[0] not in ('check', 'arches', 'trees',
                                   'default-tree', 'check-plan', 'packages',
                                   'ci', 'change', 'spared'):
        print(usage, file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd in ('change', 'spared'):
        bad = len(rest) != 1
    else:
        bad = bool(rest) and not (cmd == 'ci' and rest == ['--write'])
    if bad:
        print(usage, file=sys.stderr)
        return 2
    try:
        m = Matrix(ROOT)
        if cmd == 'check':
            # Every change of the repository: ours and changes/*.
            for d in [os.path.join(ROOT, 'patches')] + other_changes(ROOT):
                check_change(m, d)
        if cmd == 'arches':
            print(' '.join(m.arches))
        elif cmd == 'trees':
            print(' '.join(m.trees))
        elif cmd == 'default-tree':
            print(m.default_tree)
        elif cmd == 'check-plan':
            plan = m.check_plan(os.uname().machine)
            for tree, arches in plan['gate'].items():
                print('gate', tree, ' '.join(arches))
            for k in ('host', 'mutants', 'survivors'):
                print(k, m.default_tree, plan[k])
            # Every other change, on each tree it has a base for, on the
            # first arch that tree is gated on: its gate and its mutants.
            for d in other_changes(ROOT):
                base = os.path.join(d, 'base')
                for t in sorted(os.listdir(base)):
                    if t in plan['gate'] and plan['gate'][t]:
                        print('change', os.path.relpath(d, ROOT), t,
                              plan['gate'][t][0])
        elif cmd == 'packages':
            print(' '.join(m.packages()))
        elif cmd == 'ci':
            return ci(m, bool(rest))
        elif cmd == 'change':
            check_change(m, os.path.abspath(rest[0]))
        elif cmd == 'spared':
            for p in m.spared(rest[0]):
                print(os.path.relpath(p, ROOT))
    except DataError as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
