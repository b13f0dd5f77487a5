"""Derive the Unicode correction tables of chunker/tokens/_hf/_unicode.py by probing HF:

    .venv/bin/python tools/hf_unicode.py          # print the tables
    .venv/bin/python tools/hf_unicode.py --check  # exit 1 if _unicode.py's differ

HF's `tokenizers` classifies characters with old tables of its own: StripAccents and the
NFC/NFD/NFKC/NFKD normalizers use `unicode-normalization-alignments`, Bert's normalizer and
pre-tokenizers `unicode_categories`. This runs HF's normalizers and pre-tokenizer over every
code point (and, for the normalizers, over the strings that show a combining class or a
composition) and writes what it answers as ranges relative to the Unicode 14 general
categories in _ucd.py, which are the same under every Python. Nothing is taken from either
crate's source. Needs `tokenizers` (the test requirements).
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chunker.tokens._hf import _ucd  # noqa: E402
from chunker.tokens._hf._unicode import merge  # noqa: E402

FORMS = ("NFC", "NFD", "NFKC", "NFKD")
ASCII_PUNCT = [*range(0x21, 0x30), *range(0x3A, 0x41), *range(0x5B, 0x61), *range(0x7B, 0x7F)]


def _code_points() -> list[int]:
    return [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def _each(normalizer, strings: list[str], sep: str = "\n") -> list[str]:
    """HF's normalization of each string (none holds `sep`), in one call."""
    out = normalizer.normalize_str(sep.join(strings)).split(sep)
    assert len(out) == len(strings)
    return out


def _flips(hf: set[int], ucd: set[int]) -> tuple[tuple[int, int], ...]:
    """Code points where HF's answer and the Unicode 14 category disagree, as ranges."""
    return merge([(cp, cp) for cp in hf ^ ucd])


def marks() -> tuple[tuple[int, int], ...]:
    """StripAccents removes HF's combining marks: where they are not category M in _ucd."""
    from tokenizers import normalizers

    cps = _code_points()
    kept = set(normalizers.StripAccents().normalize_str("".join(map(chr, cps))))
    dropped = {cp for cp in cps if chr(cp) not in kept}
    return _flips(dropped, {cp for cp in cps if _ucd.category(chr(cp))[0] == "M"})


def bert() -> dict[str, tuple[tuple[int, int], ...]]:
    """Bert's nonspacing marks (strip_accents after NFD), "other" characters (clean_text)
    and punctuation (BertPreTokenizer), as flips of the _ucd categories."""
    from tokenizers import normalizers, pre_tokenizers

    cps = _code_points()
    cat = {cp: _ucd.category(chr(cp)) for cp in cps}
    nfd = normalizers.NFD()
    # Characters HF's NFD leaves alone: the strip step sees them as they are.
    alone = [cp for cp in cps if cp != 10]
    alone = [cp for cp, r in zip(alone, _each(nfd, [chr(cp) for cp in alone])) if r == chr(cp)]
    strip = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    mn = {cp for cp, r in zip(alone, _each(strip, [chr(cp) for cp in alone])) if not r}
    mn_ucd = {cp for cp in alone if cat[cp] == "Mn"}

    # clean_text removes "\0", U+FFFD and control characters (tab, LF and CR are whitespace).
    clean = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    some = [cp for cp in cps if cp not in (0, 0x61, 0xFFFD)]
    other = {cp for cp, r in zip(some, _each(clean, [chr(cp) for cp in some], "a")) if not r}
    other_ucd = {cp for cp in some if cat[cp] in ("Cc", "Cf", "Co") and cp not in (9, 10, 13)}

    pieces = pre_tokenizers.BertPreTokenizer().pre_tokenize_str("x".join(map(chr, cps)))
    punct = {ord(p) for p, _ in pieces if len(p) == 1 and p != "x"}
    punct_ucd = {cp for cp in cps if cat[cp][0] == "P" or cp in ASCII_PUNCT} - {ord("x")}
    return {"mn": _flips(mn, mn_ucd), "other": _flips(other, other_ucd), "punct": _flips(punct, punct_ucd)}


def _relevant(c: str) -> bool:
    """Whether Python's unicodedata gives c a decomposition or a combining class."""
    return unicodedata.normalize("NFKD", c) != c or unicodedata.combining(c) != 0


def _apart(form: str, s: str, c: str) -> str:
    """s normalized with c as a starter that neither decomposes nor composes."""
    return c.join(unicodedata.normalize(form, p) for p in s.split(c))  # type: ignore[arg-type]


def unknown_to_normalizers() -> tuple[tuple[int, int], ...]:
    """Characters of Unicode 14 that Python's normalization treats as more than a plain starter
    (a decomposition, a combining class, a place in a composition) and HF's does not: on
    every probe, HF's answer is the one with the character kept apart, never Python's."""
    from tokenizers import normalizers

    if unicodedata.unidata_version < _ucd.UNICODE_VERSION:
        raise SystemExit(f"needs a Python with Unicode {_ucd.UNICODE_VERSION} or newer")
    cps = [cp for cp in _code_points() if cp > 0x7F and _ucd.category(chr(cp)) != "Cn"]
    probes: dict[str, list[str]] = {
        chr(cp): [chr(cp), f"a{chr(cp)}\u0334", f"a\u0301{chr(cp)}", f"a\u0334{chr(cp)}"] for cp in cps if _relevant(chr(cp))
    }
    # Primary composites: both halves are probed together.
    for cp in cps:
        d = unicodedata.normalize("NFD", chr(cp))
        if len(d) == 2 and unicodedata.normalize("NFC", d) == chr(cp):
            for c in d:
                if c > "\x7f":
                    probes.setdefault(c, [c, f"a{c}\u0334", f"a\u0301{c}", f"a\u0334{c}"]).append(d)
    unknown = []
    strings = [s for c in probes for s in probes[c]]
    for form in FORMS:
        got = dict(zip(strings, _each(getattr(normalizers, form)(), strings)))
        for c, ss in probes.items():
            known = all(got[s] == unicodedata.normalize(form, s) for s in ss)  # type: ignore[arg-type]
            apart = all(got[s] == _apart(form, s, c) for s in ss)
            if not known and not apart:
                raise SystemExit(f"U+{ord(c):04X} ({form}): HF agrees with neither model")
            if not known:
                unknown.append(ord(c))
    return merge([(cp, cp) for cp in unknown])


def tables() -> dict[str, tuple[tuple[int, int], ...]]:
    b = bert()
    return {
        "FLIP_MARK": marks(),
        "FLIP_MN": b["mn"],
        "FLIP_OTHER": b["other"],
        "FLIP_PUNCT": b["punct"],
        "NEW_FOR_HF_NORMALIZERS": unknown_to_normalizers(),
    }


def source(name: str, ranges: tuple[tuple[int, int], ...]) -> str:
    """`NAME = (...)` wrapped at 99 columns, in the style of _unicode.py."""
    items = [f"(0x{a:X}, 0x{b:X})" for a, b in ranges]
    lines, line = [], f"{name} = ("
    indent = " " * len(line)
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else ")")
        if len(line) + len(piece) + 1 > 99 and line.strip() not in (f"{name} = (", ""):
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    found = tables()
    if "--check" in argv:
        from chunker.tokens._hf import _unicode

        bad = [n for n, r in found.items() if tuple(getattr(_unicode, n)) != r]
        for n in bad:
            print(f"{n} differs from HF's answer: run tools/hf_unicode.py and paste it", file=sys.stderr)
        return 1 if bad else 0
    for n, r in found.items():
        print(source(n, r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
