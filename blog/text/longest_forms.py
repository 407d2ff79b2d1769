"""Where a glossary's forms start in a text, on word boundaries, longest first, in time linear in
the text: past :data:`MATCHES_PER_CHARACTER` of pyahocorasick's overlapping matches, biji's own
automaton answers.

May import: :mod:`.cjk` only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import groupby, islice
from typing import Any

import ahocorasick

from blog.text.cjk import CJK_CHARS, CJK_RE

MATCHES_PER_CHARACTER = 2  # read from the C automaton before biji's own takes over

WORD_END = "\x02"  # after every word of the text, and after a form ending with a letter
BARRIER = "\x03"  # where no form runs across: between the pieces the caller breaks the text in
SKIPPED = "\x04"  # in place of each character of the text a form may not take
_MARKS = WORD_END + BARRIER + SKIPPED
_MARK_IN_TEXT = re.compile(f"[{_MARKS}]")
_MARKS_AS_SKIPPED = str.maketrans(dict.fromkeys(_MARKS, SKIPPED))
LETTER = f"[^\\W{CJK_CHARS}]"  # is_letter() as a regular expression: \w is isalnum() and "_"
_WORD_ENDS = re.compile(f"(?<={LETTER})(?!{LETTER})")
_LETTER_RE = re.compile(LETTER)
_TWO_LETTERS = re.compile(f"{LETTER}{{2}}")

Forms = Iterable[tuple[int, Any]]  # (length in the text, value) of the forms at a place


def is_letter(char: str) -> bool:
    """A character that joins a Latin word: letters and digits of alphabetic scripts and "_";
    not Han, kana or hangul, which are words of their own."""
    return (char.isalnum() or char == "_") and not CJK_RE.match(char)


class LongestForms:
    """Forms with a value each (the first of two equal forms keeps its value)."""

    def __init__(self, forms: Iterable[tuple[str, Any]]):
        self._automaton = ahocorasick.Automaton()
        for form, value in forms:
            if form and not _MARK_IN_TEXT.search(form) and form not in self._automaton:
                self._automaton.add_word(form, (len(form), *_needs_boundaries(form), value))
        self.empty = len(self._automaton) == 0
        if not self.empty:
            self._automaton.make_automaton()
        self._linear: _ReversedAutomaton | None = None

    def find(
        self, text: str, breaks: Iterable[int] = (), skipped: Iterable[tuple[int, int]] = ()
    ) -> list[tuple[int, Forms]]:
        """[(start, forms longest first)] for each place of ``text`` where a form starts on its word
        boundaries, none across ``breaks`` or into a ``skipped`` range."""
        if self.empty or not text:
            return []
        if _MARK_IN_TEXT.search(text):
            text = text.translate(_MARKS_AS_SKIPPED)  # no letters, in no form, counted as text
        pieces = _pieces(text, breaks, skipped)
        found = self._from_matches(text, pieces)
        if found is None:
            if self._linear is None:
                self._linear = _ReversedAutomaton(self._automaton.items())
            found = self._linear.places(text, pieces)
        return found

    def _from_matches(self, text, pieces) -> list[tuple[int, Forms]] | None:
        """The places from the C automaton's matches; None when there are too many."""
        searched = BARRIER.join(
            text[start:end] if taken else SKIPPED * (end - start) for start, end, taken in pieces
        )
        # Where each piece starts in ``searched``: one barrier more before each.
        piece_starts = [start + number for number, (start, _, _) in enumerate(pieces)]
        limit = MATCHES_PER_CHARACTER * len(searched)
        found = list(islice(self._automaton.iter(searched), limit + 1))
        if len(found) > limit:
            return None
        matches = []
        for end, (length, check_start, check_end, value) in found:
            index = end - length + 1
            start = index - bisect_right(piece_starts, index) + 1
            if check_start and start and _LETTER_RE.match(text, start - 1):
                continue
            if check_end and _LETTER_RE.match(text, start + length):
                continue
            matches.append((start, -length, value))
        matches.sort(key=lambda match: match[:2])
        return [
            (start, [(-length, value) for _, length, value in at_start])
            for start, at_start in groupby(matches, key=lambda match: match[0])
        ]


def _needs_boundaries(form: str) -> tuple[bool, bool]:
    """Whether the start and the end of ``form`` need a non-letter beside them."""
    return is_letter(form[0]), is_letter(form[-1])


def _pieces(text, breaks, skipped) -> list[tuple[int, int, bool]]:
    """``text`` cut at every break and skipped range's edge: (start, end, not skipped)."""
    skipped = sorted(skipped)
    cuts = sorted({0, len(text), *breaks, *(edge for span in skipped for edge in span)})
    pieces, next_skipped = [], 0
    for start, end in zip(cuts, cuts[1:], strict=False):
        while next_skipped < len(skipped) and skipped[next_skipped][1] <= start:
            next_skipped += 1
        taken = not (next_skipped < len(skipped) and skipped[next_skipped][0] <= start)
        pieces.append((start, end, taken))
    return pieces


def _shared_start(a: str, b: str) -> int:
    """The length of the longest common start of ``a`` and ``b``, in O(log) comparisons."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _marked(text: str, pieces) -> str:
    """``text`` with a mark after every word, a barrier between pieces, skipped text blanked."""
    marked = []
    for start, end, taken in pieces:
        if not taken:
            marked.append(SKIPPED * (end - start))
            continue
        piece = _WORD_ENDS.sub(WORD_END, text[start:end])
        if end < len(text) and piece[-1] == WORD_END and is_letter(text[end]):
            piece = piece[:-1]  # the word goes on in the next piece
        marked.append(piece)
    return BARRIER.join(marked)


class _ReversedAutomaton:
    """Aho-Corasick over the reversed forms: read from a text's end, its dictionary link names the
    longest form starting at each place, each shorter one a link further."""

    def __init__(self, forms: Iterable[tuple[str, tuple[int, bool, bool, Any]]]):
        # Node 0 is the root; a node is the end of a marked form, reversed. Sorted, each form
        # shares with the one before it all it shares with any: only the rest is walked.
        goto: list[dict[str, int]] = [{}]
        self._length, self._value, is_form = [0], [None], [False]
        path, previous = [0], ""  # path[n]: the node after the previous form's first n chars

        def step(node: int, char: str) -> int:
            if char not in goto[node]:  # only a word-end mark can be there already
                goto[node][char] = len(goto)
                goto.append({})
                self._length.append(0)
                self._value.append(None)
                is_form.append(False)
            return goto[node][char]

        for key, length, value in sorted(
            (form[::-1], length, value) for form, (length, _, _, value) in forms
        ):
            shared = _shared_start(previous, key)
            del path[shared + 1 :]
            for position in range(shared, len(key)):
                node, char = path[-1], key[position]
                # A letter that ends a word (read backwards: after none) has its mark first.
                if is_letter(char) and not (position and is_letter(key[position - 1])):
                    node = step(node, WORD_END)
                path.append(step(node, char))
            is_form[path[-1]], self._length[path[-1]], self._value[path[-1]] = True, length, value
            previous = key
        self._goto = goto
        # Failure links breadth first; longest[node]: the longest form that is a suffix of the
        # node's string (0: none); shorter[node]: the next shorter one.
        self._fail = fail = [0] * len(goto)
        self._longest = longest = [0] * len(goto)
        self._shorter = shorter = [0] * len(goto)
        queue = list(goto[0].values())
        for node in queue:  # grows while it is read
            shorter[node] = longest[fail[node]]
            longest[node] = node if is_form[node] else shorter[node]
            for char, child in goto[node].items():
                link = fail[node]
                while char not in goto[link] and link:
                    link = fail[link]
                fail[child] = goto[link].get(char, 0)
                queue.append(child)

    def places(self, text: str, pieces) -> list[tuple[int, Forms]]:
        marked = _marked(text, pieces)
        goto, fail, longest = self._goto, self._fail, self._longest
        root = goto[0]
        found, node, index = [], 0, len(marked)
        for char in reversed(marked):
            index -= 1
            if not node:
                node = root.get(char, 0)
                if not node:
                    continue
            else:
                child = goto[node].get(char)
                while child is None and node:
                    node = fail[node]
                    child = goto[node].get(char)
                node = child or 0
            if longest[node]:
                found.append((index, longest[node]))
        found.reverse()
        places, marks, counted = [], 0, 0
        for index, match in found:  # a form starts at a character of the text, never a mark
            marks += marked.count(WORD_END, counted, index) + marked.count(BARRIER, counted, index)
            counted = index
            start = index - marks
            if start and _TWO_LETTERS.match(text, start - 1):
                continue  # inside a word: every form here starts with that letter
            places.append((start, self._at(match)))
        return places

    def _at(self, match: int) -> Iterator[tuple[int, Any]]:
        while match:
            yield self._length[match], self._value[match]
            match = self._shorter[match]
