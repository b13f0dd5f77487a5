"""Pre-tokenizers: split a normalized piece into the words the model sees.

Two ways to run one (ByteLevel and Metaspace, which rewrite what the model sees, are in
_rewriting). `keyed(s, first, base)` gives the words as KEYS, substrings of s, and the
position in s (plus `base`) where each starts; the model's form of a key is derived once per
distinct key (_words). A key that starts with VIRTUAL stands for a word that gets a character
prepended (Metaspace's replacement, ByteLevel's prefix space): the virtual character counts
one in the key's length and its position is one before the word's first real character.
When `drops_ws` is true, keys that start with whitespace are gaps HF removes (no tokens).
A Sequence whose parts go on after a ByteLevel or Metaspace (Falcon's Digits after
ByteLevel) cuts keys with the parts before it; the rest (`tail`) runs per key through
`split_aligned(s, al, first)`, which carries each character's index (-index-1 for a byte
that continues a character). `split(s, first)` gives the model's words.

`first` says the piece starts the input (HF's `offsets_original().0 == 0`), which
Metaspace's prepend_scheme "first" asks.

Each pre-tokenizer also says how it treats a cut just before a space that follows a solid
character (`cut`): ISOLATES (no piece crosses the cut and each side splits as it would
alone), LOCAL (it may leave a piece across the cut, but splits each side as it would alone)
or UNSAFE.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate

from ..._errors import ChunkerError
from ._regex import Pattern, classes, translate
from ._unicode import WHITESPACE, category_class, punctuation_class, whitespace_class, word_class

ISOLATES, LOCAL, UNSAFE = "isolates", "local", "unsafe"
VIRTUAL = "\ud801"  # a lone surrogate: never in a piece (clean_surrogates replaced them)
FIRST = "\ud802"  # marks the key that starts the input, for a tail that asks (see Sequence)
AlPiece = tuple[str, list[int]]
Keyed = tuple[list[str], list[int]]
_BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def positions(keys: list[str], start: int) -> list[int]:
    """Where each of contiguous keys starts, the first at `start`."""
    return list(accumulate(map(len, keys[:-1]), initial=start)) if keys else []


def split_spans(s: str, matches: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """HF's NormalizedString::split: (start, end, is_match) parts covering s -> kept spans."""
    if behavior == "Removed":
        return [(a, b) for a, b, m in matches if not m and b > a]
    if behavior == "Isolated":
        return [(a, b) for a, b, _ in matches if b > a]
    acc: list[list[int]] = []
    prev = False
    if behavior == "Contiguous":
        for a, b, m in matches:
            if m == prev and acc:
                acc[-1][1] = b
            else:
                acc.append([a, b])
            prev = m
    elif behavior == "MergedWithPrevious":
        for a, b, m in matches:
            if m and not prev and acc:
                acc[-1][1] = b
            else:
                acc.append([a, b])
            prev = m
    else:  # MergedWithNext
        for a, b, m in reversed(matches):
            if m and not prev and acc:
                acc[-1][0] = a
            else:
                acc.append([a, b])
            prev = m
        acc.reverse()
    return [(a, b) for a, b in acc if b > a]


def regex_matches(rx: Pattern, s: str, invert: bool = False) -> list[tuple[int, int, bool]]:
    out: list[tuple[int, int, bool]] = []
    prev = 0
    for a, b in rx.spans(s):
        if prev != a:
            out.append((prev, a, invert))
        out.append((a, b, not invert))
        prev = b
    if prev != len(s):
        out.append((prev, len(s), invert))
    return out


class PreTokenizer:
    kind = ""
    cut = UNSAFE
    removes_spaces = False  # pieces never hold the whitespace (Strip before it is harmless)
    drops_ws = False
    transform: str | None = None  # "bytes" or "metaspace": the model sees keys rewritten
    tail: PreTokenizer | None = None
    splits = True  # False: keyed(s) is always ([s], [base]) (a transform alone)
    uses_first = False  # splits differently when the piece starts the input (Metaspace "first")

    def spans(self, s: str, first: bool) -> list[tuple[int, int]]:
        raise NotImplementedError

    def split(self, s: str, first: bool) -> list[str]:
        return [s[a:b] for a, b in self.spans(s, first)]

    def split_aligned(self, s: str, al: list[int], first: bool) -> list[AlPiece]:
        return [(s[a:b], al[a:b]) for a, b in self.spans(s, first)]

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        spans = self.spans(s, first) if s else []
        return [s[a:b] for a, b in spans], [base + a for a, _ in spans]

    def keys(self, s: str, first: bool) -> list[str]:
        return self.keyed(s, first, 0)[0]


class _Cover(PreTokenizer):
    """Pre-tokenizers whose keys are the matches of one regex that matches every character
    (`cover`); with drops_ws, the whitespace runs among them are removed."""

    cover: Pattern | None = None

    def keys(self, s: str, first: bool) -> list[str]:
        if self.cover is None:
            return super().keys(s, first)
        return self.cover.findall(s) if s else []

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        if self.cover is None:
            return super().keyed(s, first, base)
        keys = self.cover.findall(s) if s else []
        return keys, positions(keys, base)

    def spans(self, s: str, first: bool) -> list[tuple[int, int]]:
        assert self.cover is not None
        out = self.cover.spans(s) if s else []
        if self.drops_ws:
            out = [(a, b) for a, b in out if s[a] not in WHITESPACE]
        return out


class _WhitespaceRemover(_Cover):
    drops_ws = True
    removes_spaces = True
    cut = ISOLATES

    def __init__(self, kind: str, make: Callable[[bool], str]) -> None:
        self.kind = kind
        self.cover = classes(make)


def _bert_cover(bmp: bool) -> str:
    ws, p = whitespace_class(), punctuation_class(bmp)
    return f"[^{ws}{p}]+|[{p}]|[{ws}]+"


def _whitespace_cover(bmp: bool) -> str:
    w, ws = word_class(bmp), whitespace_class()
    return f"[{w}]+|[^{w}{ws}]+|[{ws}]+"


def _whitespace_split_cover(bmp: bool) -> str:
    ws = whitespace_class()
    return f"[^{ws}]+|[{ws}]+"


def Bert() -> PreTokenizer:
    return _WhitespaceRemover("BertPreTokenizer", _bert_cover)


def Whitespace() -> PreTokenizer:
    return _WhitespaceRemover("Whitespace", _whitespace_cover)


def WhitespaceSplit() -> PreTokenizer:
    return _WhitespaceRemover("WhitespaceSplit", _whitespace_split_cover)


class Split(PreTokenizer):
    kind = "Split"

    def __init__(self, pattern: dict[str, str], behavior: str, invert: bool) -> None:
        if behavior not in _BEHAVIORS:
            raise ChunkerError(f"Split behavior {behavior!r} is unknown; expected one of " + ", ".join(_BEHAVIORS))
        self.literal = pattern.get("String")
        if self.literal is not None:
            import re

            source = re.escape(self.literal) if self.literal else "(?!)"
            self.rx = Pattern(source, source)
        else:
            self.rx = translate(pattern["Regex"])
        self.behavior, self.invert = behavior, invert
        self.cut = self._cut(pattern.get("Regex"))
        # Isolated without invert keeps matches and gaps: when the matches cover the piece
        # (the known word regexes do), findall gives the keys.
        self._findall = behavior == "Isolated" and not invert and self.literal is None and self.rx.groups == 0

    def _cut(self, onig: str | None) -> str:
        if self.literal is not None and not self.invert:
            if self.literal == " ":
                return ISOLATES if self.behavior in ("Removed", "Isolated", "MergedWithNext") else UNSAFE
            if " " not in self.literal and self.behavior in ("Removed", "Isolated"):
                return LOCAL
            return UNSAFE
        if self.behavior == "Isolated" and not self.invert and onig in _KNOWN_WORD_REGEXES:
            return ISOLATES
        return UNSAFE

    def spans(self, s: str, first: bool) -> list[tuple[int, int]]:
        if not s:
            return []
        return split_spans(s, regex_matches(self.rx, s, self.invert), self.behavior)

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        if self._findall and s:
            keys = self.rx.findall(s)
            if sum(map(len, keys)) == len(s):
                return keys, positions(keys, base)
        return super().keyed(s, first, base)


# The GPT-2, Llama-3/cl100k, Qwen2 and o200k-style word regexes: with them, no match holds
# a solid (non-space) character followed by a space, and matching after a space restarts
# as on a fresh string (no lookbehind), so a cut before such a space isolates.
_KNOWN_WORD_REGEXES = {
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


class _CharClassSplit(_Cover):
    def __init__(self, kind: str, make: Callable[[bool], str], behavior: str) -> None:
        self.kind = kind
        self.rx = classes(lambda bmp: f"[{make(bmp)}]")
        self.behavior = behavior
        self.cut = LOCAL if behavior in ("Removed", "Isolated") else UNSAFE
        if behavior in ("Isolated", "Contiguous"):
            many = "+" if behavior == "Contiguous" else ""
            self.cover = classes(lambda bmp: f"[{make(bmp)}]{many}|[^{make(bmp)}]+")

    def spans(self, s: str, first: bool) -> list[tuple[int, int]]:
        if not s:
            return []
        if self.cover is not None:
            return self.cover.spans(s)
        return split_spans(s, regex_matches(self.rx, s), self.behavior)

    def split(self, s: str, first: bool) -> list[str]:
        if self.cover is not None:
            return self.cover.findall(s) if s else []
        return super().split(s, first)


def Punctuation(behavior: str) -> PreTokenizer:
    return _CharClassSplit("Punctuation", punctuation_class, behavior)


def Digits(individual: bool) -> PreTokenizer:
    return _CharClassSplit("Digits", lambda bmp: category_class("N", bmp), "Isolated" if individual else "Contiguous")


class Sequence(PreTokenizer):
    kind = "Sequence"

    def __init__(self, parts: list[PreTokenizer], whole: bool = True) -> None:
        self.parts = parts
        self.removes_spaces = any(p.removes_spaces for p in parts)
        # Keys come from the parts up to the last one or the first transform, whichever is
        # first; parts after a transform (Falcon's Digits after ByteLevel) split the
        # rewritten text: they form the `tail`, run per key (see _words).
        cut = next((i for i, p in enumerate(parts) if p.transform is not None or p.tail is not None), len(parts))
        if not whole or cut == len(parts) or (cut == len(parts) - 1 and parts[-1].tail is None):
            self.key_parts, self.tail = parts, None
            self.transform = parts[-1].transform if parts and whole else None
        else:
            self.key_parts, self.tail = parts[:cut], Sequence(parts[cut:], whole=False)
        self.cut = LOCAL
        for i, p in enumerate(parts):
            if p.cut == UNSAFE:
                self.cut = UNSAFE
                break
            if p.cut == ISOLATES:
                # Later parts see pieces that never cross the cut; only a position-dependent
                # Metaspace after a space-removing split would treat a side differently.
                later = parts[i + 1 :]
                if any(q.uses_first for q in later) and any(q.removes_spaces for q in parts[: i + 1]):
                    self.cut = UNSAFE
                else:
                    self.cut = ISOLATES
                break

    # A piece starts the input (HF: its original offset is 0) only if it starts where the piece
    # it came from did: after a split that drops leading whitespace (" hi" -> "hi"), the first
    # word does not, and a Metaspace "first" after it prepends nothing.
    def split(self, s: str, first: bool) -> list[str]:
        pieces = [(s, first)]
        for p in self.parts:
            if p.transform is None:  # words are slices: they start the piece where they start at 0
                pieces = [(piece[a:b], f and a == 0) for piece, f in pieces for a, b in p.spans(piece, f)]
            else:  # a rewriting part keeps the piece's start in its first word
                pieces = [(w, f and k == 0) for piece, f in pieces for k, w in enumerate(p.split(piece, f))]
        return [w for w, _ in pieces]

    def split_aligned(self, s: str, al: list[int], first: bool) -> list[AlPiece]:
        pieces: list[tuple[str, list[int], bool]] = [(s, al, first)]
        for p in self.parts:
            pieces = [
                (w, a, f and bool(a) and bool(pal) and a[0] == pal[0])
                for piece, pal, f in pieces
                for w, a in p.split_aligned(piece, pal, f)
            ]
        return [(w, a) for w, a, _ in pieces]

    def keyed(self, s: str, first: bool, base: int) -> Keyed:
        keys, starts, firsts = [s], [base], [first]
        for part in self.key_parts:
            if not part.splits:
                continue
            new_keys: list[str] = []
            new_starts: list[int] = []
            new_firsts: list[bool] = []
            for piece, p, f in zip(keys, starts, firsts):
                ks, ps = part.keyed(piece, f, p)
                if part.drops_ws:
                    kept = [i for i, x in enumerate(ks) if x[0] not in WHITESPACE]
                    ks, ps = [ks[i] for i in kept], [ps[i] for i in kept]
                new_keys += ks
                new_starts += ps
                new_firsts += [f and q <= p for q in ps]  # a prepended key starts one before
            keys, starts, firsts = new_keys, new_starts, new_firsts
        return keys, starts

    def keys(self, s: str, first: bool) -> list[str]:
        if first and any(p.uses_first for p in self.key_parts[1:]):
            return self.keyed(s, first, 0)[0]  # which key starts the input takes positions
        keys = [s]
        for part in self.key_parts:
            if not keys:
                break
            if not part.splits:
                continue
            out = part.keys(keys[0], first)
            for piece in keys[1:]:
                out += part.keys(piece, False)
            keys = [x for x in out if x[0] not in WHITESPACE] if part.drops_ws else out
        return keys
