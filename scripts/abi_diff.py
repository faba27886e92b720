#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ABI difference between two kernels, from the '# abi:' lines of
clone3_abi_probe (Documentation/abi-diff.md).

  abi_diff.py A B
      two probe outputs (raw, as the program prints them, or a KTAP
      document or console log that holds them): the table of what
      differs.  Exit 0 when nothing does, 1 otherwise.
  abi_diff.py A B --declared patches/abi-change
      the same, held against the declared change from A to B.
  abi_diff.py --declared patches/abi-change --results DIR --base base
              --variant patched --rows "x86_64 x86_64-ia32 ..."
      every row's <results>/<variant>/<row>.ktap against
      <results>/<base>/<row>.ktap and the declaration; writes
      <results>/abi-diff.md and abi-diff.json.  Without --declared, the
      difference must be empty.

Exit 0 when every observed difference is the declared one (or, without a
declaration, there is none) on every row, 1 otherwise (each undeclared
difference, and each declared one that did not happen, named per row),
2 on bad input (a file that is missing or holds no probe line, a
declaration that does not parse).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from atomic_write import write_atomic

LINE_RE = re.compile(r'^\s*# abi: (.*\S)\s*$')
ABSENT = '-'
RESULT = 'result'
SPECIAL = 'probe='
ROW_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')

# An input's observation: its keys in the order printed, 'result' first.
Obs = Dict[str, str]
Probe = Dict[str, Obs]


class BadInput(Exception):
    pass


# -- reading probe output -------------------------------------------------

def parse_line(text: str) -> Tuple[str, Obs]:
    """'flags=CLONE_VM size=88 ok tab=same ...' -> (id, observation).
    The result is the first word without '='; the words before it are the
    input, the words after it key=value pairs."""
    words = text.split()
    for i, word in enumerate(words):
        if '=' not in word:
            break
    else:
        raise ValueError('no result word')
    if i == 0:
        raise ValueError('no input before the result')
    obs = {RESULT: words[i]}
    for word in words[i + 1:]:
        key, sep, value = word.partition('=')
        if not sep or not key:
            raise ValueError('%r is not key=value' % word)
        obs[key] = value
    return ' '.join(words[:i]), obs


USUAL = SPECIAL + 'usual'
OTHERS = 'others'


def with_usual(probe: Probe, where: str = '') -> Probe:
    """Put back what a line that ends in others=usual left out: every key
    of the probe=usual line that the line does not name, at its value
    there, in that line's order (the line's own other keys after)."""
    usual = {k: v for k, v in probe.get(USUAL, {}).items() if k != RESULT}
    for key, obs in probe.items():
        if obs.get(OTHERS) is None:
            continue
        if obs[OTHERS] != 'usual' or not usual:
            why = 'no probe=usual line' if not usual else \
                'only others=usual is known'
            raise BadInput('%s: %r: others=%s, but %s' % (
                where, key, obs[OTHERS], why))
        full = {RESULT: obs[RESULT]}
        for k, v in usual.items():
            full[k] = obs.get(k, v)
        for k, v in obs.items():
            if k not in full and k != OTHERS:
                full[k] = v
        probe[key] = full
    return probe


def parse_probe(text: str, where: str = '') -> Probe:
    """Every '# abi:' line of a probe output, a KTAP document or a console
    log, at any depth of nesting, with what others=usual left out put
    back."""
    probe: Probe = {}
    for no, line in enumerate(text.splitlines(), 1):
        m = LINE_RE.match(line.replace('\r', ''))
        if not m:
            continue
        try:
            key, obs = parse_line(m.group(1))
        except ValueError as e:
            raise BadInput('%s:%d: bad probe line: %s' % (where, no, e))
        if key in probe:
            raise BadInput('%s:%d: input %r twice' % (where, no, key))
        probe[key] = obs
    return with_usual(probe, where)


def read_probe(path: str, need: bool = True) -> Probe:
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            probe = parse_probe(f.read(), path)
    except FileNotFoundError:
        raise BadInput('no such file: %s' % path)
    except OSError as e:
        raise BadInput('cannot read %s: %s' % (path, e))
    if need and not probe:
        raise BadInput('%s holds no probe line (# abi: ...)' % path)
    return probe


def flags_of(key: str) -> List[str]:
    for word in key.split():
        if word.startswith('flags='):
            value = word[len('flags='):]
            return [] if value == '0' else value.split('|')
    return []


def without_flag(key: str, flag: str) -> str:
    """The same input without FLAG: its counterpart."""
    words = []
    for word in key.split():
        if word.startswith('flags='):
            rest = [f for f in flags_of(key) if f != flag]
            word = 'flags=' + ('|'.join(rest) or '0')
        words.append(word)
    return ' '.join(words)


# -- the declaration ------------------------------------------------------

def with_size(key: str, size: str) -> str:
    """The same input at struct size SIZE, without a tail."""
    words = [w for w in key.split() if w != 'tail=nonzero']
    return ' '.join('size=' + size if w.startswith('size=') else w
                    for w in words)


def refusal(b: Obs, result: str) -> Obs:
    """A call refused with RESULT: the result and the caller's state."""
    return {RESULT: result, 'caller': b.get('caller', 'same')}


CAP_RE = re.compile(r'^CAP_[A-Z_]+$')
FLAG_RE = re.compile(r'^(CLONE_[A-Z0-9_]+|bit[0-9]+)$')
RESULT_RE = re.compile(r'^(ok|E[A-Z0-9]+|errno[0-9]+)$')
SIZE_RE = re.compile(r'^([0-9]+|page|page\+8)$')
REASON_RE = re.compile(r'^(.*?)\s+because\s+"([^"]+)"\s*$')
WORD_RE = re.compile(
    r'^(exit_signal|size|stack|stack_size|tail|nocap)=\S+$')


def has_word(key: str, word: str) -> bool:
    """Whether input KEY has WORD: a flag of its flags=, or one of its
    words (exit_signal=0: an input without exit_signal= has SIGCHLD)."""
    if FLAG_RE.match(word):
        return word in flags_of(key)
    return word in key.split()


@dataclass
class Block:
    """One statement that starts a block, and those that follow it:

      flag NAME                  a new flag: an input with it behaves as
                                 its twin without it (where base gave
                                 accepted-from), but for refused-with
      allow F1 F2... was R       inputs with every Fi that gave R on base
                                 now behave as their twin without F1
      refuse F1 F2... with R     inputs with every Fi that were accepted
                                 on base are now refused with R
      size N [tail] was R1 now R2
                                 inputs of struct size N (with the tail
                                 word) that gave R1 give R2; ok: as the
                                 same input at size 88
    then, where they apply: accepted-from R, refused-with F R,
    refused-unless F|WORD R, needs CAP, child KEY=VALUE..., except-rows
    ROW... because "reason"."""
    kind: str
    line: int
    flags: List[str] = field(default_factory=list)
    was: str = 'EINVAL'
    now: str = 'ok'
    size: str = ''
    tail: bool = False
    refused: List[Tuple[str, str]] = field(default_factory=list)
    unless: List[Tuple[str, str]] = field(default_factory=list)
    needs: List[str] = field(default_factory=list)
    needs_unless: List[str] = field(default_factory=list)
    child: Dict[str, str] = field(default_factory=dict)
    except_rows: Dict[str, str] = field(default_factory=dict)

    @property
    def flag(self) -> Optional[str]:
        return self.flags[0] if self.kind == 'flag' else None

    def matches(self, key: str) -> bool:
        if key.startswith(SPECIAL):
            return False
        if self.kind == 'size':
            words = key.split()
            return 'size=' + self.size in words and \
                ('tail=nonzero' in words) == self.tail
        have = flags_of(key)
        return all(f in have for f in self.flags)

    def refusal(self, key: str) -> Optional[str]:
        """What the new kernel refuses KEY with by this block's rules
        (refused-with, refused-unless), or None."""
        for other, result in self.refused:
            if other in flags_of(key):
                return result
        for word, result in self.unless:
            if not has_word(key, word):
                return result
        return None

    def cap_refusal(self, key: str) -> Optional[str]:
        """EPERM for an input made without a capability the flag needs
        (the word nocap=CAP_...), unless it has a flag that waives it."""
        for cap in self.needs:
            if has_word(key, 'nocap=' + cap) and not any(
                    f in flags_of(key) for f in self.needs_unless):
                return 'EPERM'
        return None

    def twin(self, key: str) -> str:
        if self.kind == 'size':
            return with_size(key, str(88))
        return without_flag(key, self.flags[0])

    def expect(self, key: str, b: Obs, new: Probe) -> \
            Tuple[Obs, List[str]]:
        """What the new kernel shows for KEY, which this block matches."""
        if self.kind == 'flag':
            result = self.refusal(key)
            if result is not None:
                e = dict(b)
                if b.get(RESULT) == self.was:
                    e[RESULT] = result
                return e, []
        if self.kind == 'refuse':
            if b.get(RESULT) != 'ok':
                return dict(b), []
            return refusal(b, self.now), []
        if self.kind in ('allow', 'size') and b and \
                b.get(RESULT) != self.was:
            return dict(b), []
        if self.kind == 'size' and self.now != 'ok':
            return refusal(b, self.now), []
        twin = self.twin(key)
        if twin not in new:
            return dict(b), ['no input %r to derive %r from' % (twin, key)]
        e = dict(new[twin])
        if e.get(RESULT) == 'ok':
            e.update(self.child)
        if self.kind == 'flag' and b and b != e and \
                b.get(RESULT) != self.was:
            return e, ['it gave %s before, but only inputs that gave %s '
                       'are declared to change' % (b.get(RESULT), self.was)]
        return e, []

    def alone(self, key: str, new: Probe) -> Optional[Obs]:
        """Without base: the twin's line on the same kernel, as this block
        says KEY must read (flag and allow blocks; None: no claim)."""
        if self.kind not in ('flag', 'allow'):
            return None
        twin = new.get(self.twin(key))
        if twin is None:
            return None
        e = dict(twin)
        if self.refusal(key) is not None:
            if e.get(RESULT) == 'ok':
                return {RESULT: self.refusal(key),
                        'caller': twin.get('caller', ABSENT)}
            return {k: v for k, v in e.items() if k in (RESULT,
                                                        'caller')}
        if e.get(RESULT) != 'ok':
            return None if self.kind == 'allow' else e
        e.update(self.child)
        return e

    def describe(self) -> str:
        if self.kind == 'flag':
            out = ('%s is accepted where it gave %s; an input with it '
                   'behaves as the same input without it' %
                   (self.flag, self.was))
            more = ['with %s too it gives %s' % kv for kv in self.refused]
            more += ['without %s it gives %s' % kv for kv in self.unless]
        elif self.kind == 'allow':
            out = ('%s together (where base gave %s) behave as without %s'
                   % (' | '.join(self.flags), self.was, self.flags[0]))
            more = []
        elif self.kind == 'refuse':
            out = '%s together are refused with %s' % (
                ' | '.join(self.flags), self.now)
            more = []
        else:
            out = 'struct size %s%s gives %s where it gave %s%s' % (
                self.size, ' with a tail' if self.tail else '', self.now,
                self.was, ' (as size 88)' if self.now == 'ok' else '')
            more = []
        if self.child:
            more.append('a child made so has %s' % ' '.join(
                '%s=%s' % kv for kv in self.child.items()))
        if self.needs:
            more.append('it needs %s%s (made without it: EPERM)' % (
                ' '.join(self.needs), '' if not self.needs_unless else
                ' but with %s' % ' or '.join(self.needs_unless)))
        for row, why in self.except_rows.items():
            more.append('not on %s: %s' % (row, why))
        return out + ('' if not more else ', except: ' + '; '.join(more))


@dataclass
class Declaration:
    """A change's abi-change (Documentation/abi-diff.md): blocks, each a
    difference from base to the new kernel; no block: nothing may change.
    An input takes the first block that names it (except-rows aside);
    every other input, and every key a block does not name, must not
    change."""
    path: Optional[str] = None
    blocks: List[Block] = field(default_factory=list)

    @property
    def flag(self) -> Optional[str]:
        """The first new flag, if one is declared."""
        return next((b.flag for b in self.blocks if b.flag), None)

    @property
    def prefer(self) -> Optional[str]:
        """The flag a newly made child is told against."""
        return next((b.flags[0] for b in self.blocks if b.flags), None)

    @classmethod
    def read(cls, path: str) -> 'Declaration':
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except OSError as e:
            raise BadInput('cannot read the declaration %s: %s' % (path, e))
        return cls.parse(text, path)

    @classmethod
    def parse(cls, text: str, path: str = '<declaration>') -> 'Declaration':
        decl = cls(path)
        cur: Optional[Block] = None
        for no, line in enumerate(text.splitlines(), 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            try:
                cur = decl._statement(words, no, cur)
            except ValueError as e:
                raise BadInput('%s:%d: %s: %r' % (path, no, e, line.strip()))
        return decl

    def _statement(self, words: List[str], no: int,
                   cur: Optional[Block]) -> Optional[Block]:
        what, args = words[0], words[1:]

        def need(kinds: Tuple[str, ...]) -> Block:
            if cur is None or cur.kind not in kinds:
                raise ValueError('%s belongs to a %s block' % (
                    what, ' or '.join(kinds)))
            return cur

        def flags(items: List[str]) -> List[str]:
            if not items or not all(FLAG_RE.match(f) for f in items):
                raise ValueError('expected flag names (CLONE_* or bitN)')
            return items

        def result(word: str) -> str:
            if not RESULT_RE.match(word):
                raise ValueError('%r is no result (ok, EINVAL, ...)' % word)
            return word
        if what == 'flag' and len(args) == 1:
            if any(b.flag == args[0] for b in self.blocks):
                raise ValueError('%s is declared twice' % args[0])
            cur = Block('flag', no, flags(args))
        elif what in ('allow', 'refuse') and len(args) >= 3 and \
                args[-2] == ('was' if what == 'allow' else 'with'):
            cur = Block(what, no, flags(args[:-2]))
            if what == 'allow':
                cur.was = result(args[-1])
            else:
                cur.now = result(args[-1])
        elif what == 'size' and len(args) in (5, 6) and \
                args[-4] == 'was' and args[-2] == 'now':
            if not SIZE_RE.match(args[0]) or (len(args) == 6 and
                                              args[1] != 'tail'):
                raise ValueError('size N [tail] was R1 now R2')
            cur = Block('size', no, size=args[0], tail=len(args) == 6,
                        was=result(args[-3]), now=result(args[-1]))
        elif what == 'accepted-from' and len(args) == 1:
            need(('flag',)).was = result(args[0])
        elif what == 'refused-with' and len(args) == 2:
            need(('flag',)).refused.append((flags(args[:1])[0],
                                            result(args[1])))
        elif what == 'refused-unless' and len(args) == 2:
            if not FLAG_RE.match(args[0]) and not WORD_RE.match(args[0]):
                raise ValueError('expected a flag name or an input word '
                                 '(exit_signal=0, size=88, ...)')
            need(('flag',)).unless.append((args[0], result(args[1])))
        elif what == 'needs' and args and all(
                CAP_RE.match(a) for a in
                (args[:args.index('unless')] if 'unless' in args else args)):
            caps, waive = args, []
            if 'unless' in args:
                at = args.index('unless')
                caps, waive = args[:at], flags(args[at + 1:])
                if not caps:
                    raise ValueError('needs CAP_... [unless FLAG...]')
            blk = need(('flag',))
            blk.needs += caps
            blk.needs_unless += waive
        elif what == 'child' and args and all('=' in a and
                                              not a.startswith('=')
                                              for a in args):
            blk = need(('flag', 'allow', 'size'))
            for a in args:
                k, _, v = a.partition('=')
                blk.child[k] = v
        elif what == 'except-rows':
            blk = need(('flag', 'allow', 'refuse', 'size'))
            m = REASON_RE.match(' '.join(args))
            if not m or not m.group(1).split() or not all(
                    ROW_RE.match(r) for r in m.group(1).split()):
                raise ValueError('except-rows ROW... because "reason"')
            for r in m.group(1).split():
                blk.except_rows[r] = m.group(2)
            return blk
        else:
            raise ValueError('not a statement of the declaration')
        if cur is not None and (not self.blocks or self.blocks[-1] is
                                not cur):
            self.blocks.append(cur)
        return cur

    def block_for(self, key: str, row: Optional[str] = None) -> \
            Optional[Block]:
        for b in self.blocks:
            if b.matches(key) and (row is None or
                                   row not in b.except_rows):
                return b
        return None

    def touches(self, key: str) -> bool:
        """Whether a block names KEY (on some row)."""
        return any(b.matches(key) for b in self.blocks)

    def describe(self) -> List[str]:
        if not self.blocks:
            return ['nothing changes']
        return [b.describe() for b in self.blocks] + \
            ['nothing else changes']

    def expected(self, key: str, base: Probe, new: Probe,
                 row: Optional[str] = None) -> Tuple[Obs, List[str]]:
        """What the new kernel must show for input KEY on ROW, and any
        problem in deriving it (a twin the probe did not print)."""
        b = base.get(key, {})
        blk = self.block_for(key, row)
        if blk is None:
            return dict(b), []
        # A rule of any flag block that names KEY refuses it, before the
        # first block tells it against its twin (CLONE_AUTOREAP's
        # exit_signal rule holds for an input CLONE_PIDFD_AUTOKILL's
        # block names first).
        # Then a capability a flag needs and the caller lacked (nocap=).
        for phase in ('refusal', 'cap_refusal'):
            for other in self.flag_blocks_for(key, row):
                result = getattr(other, phase)(key)
                if result is not None:
                    e = dict(b)
                    if b.get(RESULT) == other.was:
                        e[RESULT] = result
                    return e, []
        return blk.expect(key, b, new)

    def flag_blocks_for(self, key: str, row: Optional[str] = None) -> \
            List[Block]:
        return [b for b in self.blocks if b.kind == 'flag' and
                b.matches(key) and (row is None or
                                    row not in b.except_rows)]

    def alone(self, key: str, new: Probe) -> Optional[Obs]:
        """Without base, what the declaration still says of KEY (flag and
        allow blocks: the twin's line); None for any other input."""
        blk = self.block_for(key)
        if blk is None:
            return None
        for other in self.flag_blocks_for(key):
            if other.refusal(key) is not None:
                return other.alone(key, new)
        for other in self.flag_blocks_for(key):
            if other.cap_refusal(key) is not None:
                twin = new.get(other.twin(key), {})
                return {RESULT: 'EPERM',
                        'caller': twin.get('caller', 'same')}
        return blk.alone(key, new)


# -- comparing ------------------------------------------------------------

Change = Tuple[Tuple[str, str, str], ...]    # (key, from, to) ...


def change_of(a: Obs, b: Obs) -> Change:
    keys = list(a) + [k for k in b if k not in a]
    return tuple((k, a.get(k, ABSENT), b.get(k, ABSENT)) for k in keys
                 if a.get(k, ABSENT) != b.get(k, ABSENT))


def twin_note(key: str, obs: Obs, side: Probe,
              prefer: Optional[str]) -> Optional[str]:
    """A child that a call newly made, told against the child of the same
    input without one of its flags on the same kernel: 'as without
    CLONE_X, but tab=cleared' (the flag PREFER when it can, else the one
    whose removal leaves the fewest differences), or None when no such
    input made a child."""
    best: Optional[Tuple[int, str, str]] = None
    flags = flags_of(key)
    if prefer in flags:
        flags = [prefer] + [f for f in flags if f != prefer]
    for flag in flags:
        twin = side.get(without_flag(key, flag))
        if not twin or twin.get(RESULT) != 'ok':
            continue
        diff = [(k, v) for k, v in obs.items()
                if k != RESULT and twin.get(k, ABSENT) != v]
        diff += [(k, ABSENT) for k in twin if k not in obs]
        text = 'the child as without %s' % flag
        if diff:
            text += ', but ' + ' '.join('%s=%s' % kv for kv in diff)
        if flag == prefer:
            return text
        if best is None or len(diff) < best[0]:
            best = (len(diff), flag, text)
    return best[2] if best else None


def fmt_change(change: Change, left: str = 'base', right: str = 'new',
               note: Optional[str] = None) -> str:
    """'base EINVAL -> new ok; the child as without X, but tab=cleared'"""
    if not change:
        return 'no change'
    parts, born = [], []
    if note:
        change = tuple(c for c in change if c[0] == RESULT or
                       c[1] != ABSENT)
    results = dict((k, (a, b)) for k, a, b in change if k == RESULT)
    if RESULT in results and results[RESULT][0] == 'ok':
        # No child any more: its keys went with it.
        change = tuple(c for c in change if c[0] == RESULT or
                       c[2] != ABSENT)
    for k, a, b in change:
        if k == RESULT:
            parts.append('%s %s -> %s %s' % (left, a, right, b))
        elif a == ABSENT:
            born.append('%s=%s' % (k, b))
        elif b == ABSENT:
            parts.append('%s=%s gone' % (k, a))
        else:
            parts.append('%s: %s -> %s' % (k, a, b))
    if note:
        parts.append(note)
    elif born:
        parts.append('new: ' + ' '.join(born))
    return '; '.join(parts)


def describe(key: str, b: Obs, n: Obs, side: Probe, left: str,
             right: str, prefer: Optional[str]) -> str:
    """The change of one input, a child newly made told against its twin."""
    note = None
    if b.get(RESULT) != 'ok' and n.get(RESULT) == 'ok':
        note = twin_note(key, n, side, prefer)
    return fmt_change(change_of(b, n), left, right, note)


def label(keys: List[str], universe: List[str]) -> str:
    """The inputs of a group, as briefly as they can be named exactly."""
    n = len(keys)
    if n <= 2:
        return '; '.join(keys)
    sets = {k: set(flags_of(k)) for k in universe}
    common = set.intersection(*(sets[k] for k in keys))
    if common:
        wanted = '|'.join(f for f in flags_of(keys[0]) if f in common)
        pool = [k for k in universe if common <= sets[k]]
        if len(pool) == n:
            return 'every input with %s (all %d)' % (wanted, n)
        outside = set().union(*(sets[k] for k in pool)) - \
            set().union(*(sets[k] for k in keys))
        if outside and len(outside) <= 3:
            rest = [k for k in pool if not sets[k] & outside]
            if len(rest) == n:
                return 'every input with %s, without %s (all %d)' % (
                    wanted, ' or '.join(sorted(outside)), n)
        return '%d of the %d inputs with %s, e.g. %s' % (
            n, len(pool), wanted, keys[0])
    return '%d inputs, e.g. %s; %s' % (n, keys[0], keys[1])


def new_flag(base: Probe, new: Probe) -> Optional[str]:
    """The flag that every input newly accepted has, if there is one."""
    common: Optional[set] = None
    for key, n in new.items():
        if n.get(RESULT) == 'ok' and base.get(key, {}).get(RESULT) not in \
                (None, 'ok'):
            flags = set(flags_of(key))
            common = flags if common is None else common & flags
    if not common:
        return None
    return sorted(common)[0]


@dataclass
class RowDiff:
    """One row: the groups of inputs that changed alike, and the problems
    against the declaration."""
    row: str
    groups: List[dict] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems

    def to_json(self) -> dict:
        return {'row': self.row, 'as_declared': self.ok,
                'error': self.error, 'problems': self.problems,
                'groups': self.groups}


def compare(row: str, base: Probe, new: Probe, decl: Declaration,
            left: str = 'base', right: str = 'new') -> RowDiff:
    out = RowDiff(row)
    keys = list(base) + [k for k in new if k not in base]
    groups: Dict[Tuple[str, str, str], List[str]] = {}
    prefer = decl.prefer or new_flag(base, new)
    for key in keys:
        b, n = base.get(key, {}), new.get(key, {})
        expect, trouble = decl.expected(key, base, new, row)
        seen, declared = change_of(b, n), change_of(b, expect)
        out.problems += ['%s: %s' % (key, t) for t in trouble]
        if not seen and not declared:
            continue
        if seen == declared:
            verdict = 'declared'
        elif not seen:
            verdict = 'MISSING'
        elif not declared:
            verdict = 'UNDECLARED'
        else:
            verdict = 'DIFFERENT'
        texts = (describe(key, b, n, new, left, right, prefer),
                 describe(key, b, expect, new, left, right, prefer))
        # A newly made child is told against a twin on each side, which
        # can hide the key that differs: name it.
        against = fmt_change(change_of(expect, n), 'declared', right) \
            if verdict == 'DIFFERENT' else ''
        groups.setdefault((verdict,) + texts + (against,), []).append(key)
    for (verdict, seen_text, decl_text, against), members in groups.items():
        text = label(members, keys)
        group = {'verdict': verdict, 'inputs': members, 'label': text,
                 'seen': seen_text, 'declared': decl_text}
        out.groups.append(group)
        if verdict == 'declared':
            continue
        if verdict == 'MISSING':
            what = 'declared but did not happen: %s' % group['declared']
        elif verdict == 'UNDECLARED':
            what = 'undeclared: %s' % group['seen']
        else:
            what = '%s, declared: %s (against the declaration: %s)' % (
                group['seen'], group['declared'], against)
        out.problems.append('%s %s: %s' % (verdict, text, what))
    order = {'UNDECLARED': 0, 'DIFFERENT': 1, 'MISSING': 2, 'declared': 3}
    out.groups.sort(key=lambda g: (order[g['verdict']], g['inputs'][0]))
    return out


def compare_alone(row: str, new: Probe, decl: Declaration,
                  right: str = 'new') -> RowDiff:
    """No base to compare with: each input with the flag against its twin
    on the same kernel, as the declaration says it must read."""
    out = RowDiff(row)
    keys = list(new)
    groups: Dict[str, List[str]] = {}
    for key in keys:
        expect = decl.alone(key, new)
        if expect is None:
            continue
        change = change_of(expect, new[key])
        if change:
            groups.setdefault(fmt_change(change, 'declared', right),
                              []).append(key)
    for text, members in groups.items():
        where = label(members, keys)
        out.groups.append({'verdict': 'DIFFERENT', 'inputs': members,
                           'label': where, 'seen': text, 'declared': ''})
        out.problems.append('DIFFERENT %s: against its twin: %s' % (
            where, text))
    return out


# -- reports --------------------------------------------------------------

def md_cell(text: str) -> str:
    return text.replace('|', '\\|').replace('\n', ' ')


def row_text(diff: RowDiff, left: str, right: str,
             with_decl: bool) -> List[str]:
    lines = ['## %s: %s -> %s' % (diff.row, left, right), '']
    if diff.error:
        return lines + ['ERROR: ' + diff.error, '']
    if not diff.groups:
        lines.append('no difference')
    else:
        head = ['inputs', 'what changed']
        if with_decl:
            head = ['', 'inputs', 'what changed', 'declared']
        lines.append('| ' + ' | '.join(head) + ' |')
        lines.append('|' + '---|' * len(head))
        for g in diff.groups:
            cells = [g['label'], g['seen']]
            if with_decl:
                cells = [g['verdict'] if g['verdict'] != 'declared'
                         else 'ok'] + cells + [g['declared']]
            lines.append('| ' + ' | '.join(md_cell(c) for c in cells) +
                         ' |')
    extra = [p for p in diff.problems if ': no input ' in p]
    lines += [''] + ['- ' + p for p in extra] if extra else []
    if with_decl:
        lines += ['', '%s: %s' % (diff.row, 'as declared' if diff.ok else
                                  '%d difference(s) from the declaration'
                                  % len(diff.problems))]
    return lines + ['']


def report(diffs: List[RowDiff], decl: Declaration, left: str, right: str,
           title: str) -> str:
    lines = ['# ' + title, '']
    if decl.path:
        said = decl.describe()
        lines += ['Declared (%s): %s.' % (decl.path, '; '.join(said)), '']
    for d in diffs:
        lines += row_text(d, left, right, decl.path is not None)
    bad = [d.row for d in diffs if not d.ok]
    if decl.path:
        verdict = 'every row as declared' if not bad else \
            'differs from the declaration on ' + ' '.join(bad)
    else:
        verdict = 'no difference' if not bad else \
            'differences on ' + ' '.join(bad)
    lines.append('abi-diff: ' + verdict)
    return '\n'.join(lines) + '\n'


def check_results(results: str, base: str, variant: str, row: str,
                  decl: Declaration) -> RowDiff:
    """One row of a results directory, against the declaration."""
    try:
        b = read_probe(os.path.join(results, base, row + '.ktap'))
    except BadInput as e:
        d = RowDiff(row)
        d.error = 'base: %s' % e
        return d
    try:
        n = read_probe(os.path.join(results, variant, row + '.ktap'),
                       need=False)
    except BadInput as e:
        d = RowDiff(row)
        d.error = '%s: %s' % (variant, e)
        return d
    return compare(row, b, n, decl, base, variant)


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('files', nargs='*', metavar='FILE')
    p.add_argument('--declared')
    p.add_argument('--results')
    p.add_argument('--base', default='base')
    p.add_argument('--variant', default='patched')
    p.add_argument('--rows')
    p.add_argument('--json', action='store_true',
                   help='print the JSON record instead of the table')
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        decl = Declaration.read(args.declared) if args.declared else \
            Declaration()
        if args.files:
            if len(args.files) != 2 or args.results or args.rows:
                raise BadInput('give two probe outputs, or --results DIR '
                               '--rows "..."')
            a, b = (read_probe(f) for f in args.files)
            diffs = [compare('%s -> %s' % tuple(args.files), a, b, decl,
                             'A', 'B')]
            text = report(diffs, decl, 'A', 'B', 'clone3 ABI diff')
            print(json.dumps([d.to_json() for d in diffs], indent=2)
                  if args.json else text, end='' if not args.json else '\n')
            return 0 if all(d.ok for d in diffs) else 1
        if not args.results or not args.rows:
            raise BadInput('--results DIR and --rows "..." (or two files) '
                           'are needed')
        if not os.path.isdir(args.results):
            raise BadInput('no results directory at %s' % args.results)
        rows = args.rows.split()
        for name in rows + [args.base, args.variant]:
            if not ROW_RE.match(name):
                raise BadInput('bad name %r' % name)
        diffs = [check_results(args.results, args.base, args.variant, r,
                               decl) for r in rows]
    except BadInput as e:
        print('abi_diff: error: %s' % e, file=sys.stderr)
        return 2
    text = report(diffs, decl, args.base, args.variant,
                  'clone3 ABI diff: %s -> %s' % (args.base, args.variant))
    record = {'base': args.base, 'variant': args.variant,
              'declared': args.declared, 'declaration': decl.describe(),
              'rows': {d.row: d.to_json() for d in diffs},
              'as_declared': all(d.ok for d in diffs)}
    write_atomic(os.path.join(args.results, 'abi-diff.md'), text)
    write_atomic(os.path.join(args.results, 'abi-diff.json'),
                 json.dumps(record, indent=2) + '\n')
    print(json.dumps(record, indent=2) if args.json else text, end='')
    errors = [d for d in diffs if d.error]
    for d in errors:
        print('abi_diff: error: %s: %s' % (d.row, d.error), file=sys.stderr)
    if errors:
        return 2
    return 0 if record['as_declared'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
