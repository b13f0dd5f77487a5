"""Punkt's sentence boundaries with no training data, in pure Python.

LlamaIndex's `SentenceSplitter` cuts sentences with nltk's ``PunktSentenceTokenizer()`` made
without training text: no abbreviations, collocations or sentence starters are known, and every
word's orthographic context is empty. What is left of Punkt is then a fixed rule, reproduced
here so the page (where nltk cannot be loaded: it needs the compiled ``regex`` package) finds
the very spans nltk finds (``tests/test_punkt.py`` compares them on real text and on generated
text).

The rule, as the untrained tokenizer applies it:

1. Candidates are the characters ``.``, ``?`` and ``!`` followed by a closing mark (one of
   ``)";}]*:@'({[`` or a curly quote, guillemet, ``?`` or ``!``) or by whitespace and a word.
2. Each candidate is judged on a short context: the word before it, itself, and what follows.
   Those are cut into Punkt's word tokens; a token is a break when it is ``?``, ``!``, or ends
   in a single full stop. A full stop after an initial (one letter) is no break when the next
   token is punctuation or starts with a cased letter; after a number, when the next token is
   punctuation or starts with a lowercase letter. The context breaks when any token but its
   last is a break.
3. A sentence ends after a breaking candidate; the next one starts at the following word (or
   right after the candidate, when a mark followed it). Closing quotes and brackets that
   open the next sentence are moved back onto the sentence they close. The last sentence
   ends before the text's trailing whitespace.

Whitespace, word and digit classes are those of nltk's regular expression engine (``regex``),
which differ from Python's ``re`` in a few code points (`_WS` and `_word_letter` below); the
candidate's word is looked for back to ASCII whitespace only, as nltk does. Linear in the
length of the text.

>>> text = 'Mr. Smith arrived at 5 p.m. today. "Is it late?" he asked. J. Bach wrote it.'
>>> [text[s:e] for s, e in punkt_spans(text)]
['Mr.', 'Smith arrived at 5 p.m.', 'today.', '"Is it late?"', 'he asked.', 'J. Bach wrote it.']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

__all__ = ["punkt_spans", "punkt_starts"]

Span = tuple[int, int]

# Code points where nltk's engine (`regex`, Unicode's White_Space, Alphabetic and Nd) and
# Python's `re` (str.isspace, str.isalnum, str.isdecimal) disagree about \s, \w and \d. Python
# counts the information separators U+001C..U+001F as whitespace and Unicode does not; the
# other differences are letters and digits of Unicode versions newer than this interpreter's,
# which no real text of those versions' scripts is expected to hold, so only \s is spelled out.
_WS = r"[^\S\x1c-\x1f]"
_NONSPACE = r"[\S\x1c-\x1f]"

_CLOSING = "\u2018\u2019\u201c\u201d\xab\xbb"
# A character that cannot be inside a word: it ends one (the full stop is not among them).
_NON_WORD = "[)\";}\\]*:@'({\\[" + _CLOSING + "?!]"
# Runs of hyphens or dots, and spaced dots (". . ."), are one token each.
_MULTI = rf"(?:-{{2,}}|\.{{2,}}|(?:\.{_WS}){{2,}}\.)"

# Punkt's word tokens: a multi-character mark; a word (not starting with an opening mark,
# ended by whitespace, a non-word character, a multi-character mark, or a comma that ends the
# word); or any other single character.
_WORD = re.compile(
    rf"{_MULTI}"
    rf"|(?=[^(\"`{{\[:;&#*@)}}\]\-,]){_NONSPACE}+?"
    rf"(?={_WS}|$|{_NON_WORD}|{_MULTI}|,(?=$|{_WS}|{_NON_WORD}|{_MULTI}))"
    rf"|{_NONSPACE}"
)

# A candidate and what follows it: group 1 is everything after it that Punkt reads (a non-word
# character, or whitespace and the next token), group 2 that next token.
_CANDIDATE = re.compile(rf"[.?!](?=({_NON_WORD}|{_WS}+({_NONSPACE}+)))")

# Closing quotes and brackets at the start of a sentence, with the whitespace after them.
_REALIGN = re.compile(rf"[\"')\]}}{_CLOSING}]+?(?:{_WS}+|(?=--)|$)", re.MULTILINE)

_NUMERIC = re.compile(r"-?[.,]?\d[\d,.-]*\.?$")
_PUNCTUATION = frozenset(";:,.!?")
_ASCII_SPACE = " \t\n\r\x0b\x0c"


# Letters in the sense of nltk's engine: a word character that is not a digit. Unicode's
# Alphabetic property holds the circled and squared Latin letters besides the letters, letter
# numbers and combining marks Python's categories give.
_LETTER_CATEGORIES = frozenset(("Nl", "Mn", "Mc", "Me", "Pc"))
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def _word_letter(c: str) -> bool:
    if c.isalpha() or c in "\u200c\u200d":
        return True
    if unicodedata.category(c) in _LETTER_CATEGORIES:
        return True
    n = ord(c)
    return any(lo <= n <= hi for lo, hi in _ALPHABETIC_SYMBOLS)


def _is_break(tok: str, following: str | None) -> bool:
    """Whether the word token `tok` ends a sentence, `following` being the token after it."""
    if tok.endswith("."):
        if tok.endswith(".."):
            return False
    elif tok != "?" and tok != "!":
        return False
    if following is None or not tok.endswith("."):
        return True
    initial = len(tok) == 2 and _word_letter(tok[0])
    # A token's type is its lower case, "##number##" when it is a number; the full stop goes.
    lower = tok.lower()
    kind = "##number##" if _NUMERIC.match(lower) else lower
    if len(kind) > 1 and kind.endswith("."):
        kind = kind[:-1]
    if not initial and kind != "##number##":
        return True
    # The untrained orthographic test: punctuation or a lowercase word never starts a
    # sentence; anything else is "unknown".
    if following in _PUNCTUATION or following[0].islower():
        return False
    return not (initial and following[0].isupper())


def _context_breaks(context: str) -> bool:
    """Whether any word token of `context` but the last ends a sentence."""
    tokens = [tok for line in context.split("\n") if line.strip() for tok in _WORD.findall(line)]
    return any(_is_break(tokens[i], tokens[i + 1]) for i in range(len(tokens) - 1))


def _candidates(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each candidate with its context: the word before it, the candidate, what follows.

    The word before runs back to the last ASCII whitespace since the previous candidate; when
    there is none there (or it is that candidate's very position), the previous candidate's
    word is taken too, and the previous candidate is then not judged on its own.
    """
    word_start = word_end = 0
    held: re.Match[str] | None = None
    for m in _CANDIDATE.finditer(text):
        at = m.start()
        space = max(text.rfind(c, word_end, at) for c in _ASCII_SPACE)
        start = space + 1 if space > word_end else word_start
        if held is not None and word_end <= start:
            yield held, text[word_start:word_end] + held.group() + held.group(1)
        held, word_start, word_end = m, start, at
    if held is not None:
        yield held, text[word_start:word_end] + held.group() + held.group(1)


def _sentences(text: str) -> Iterator[Span]:
    """The sentences before the closing marks are moved."""
    last = 0
    for m, context in _candidates(text):
        if _context_breaks(context):
            yield last, m.end()
            last = m.start(2) if m.group(2) else m.end()
    yield last, len(text.rstrip())


def punkt_spans(text: str) -> list[Span]:
    """Sentence spans as nltk's ``PunktSentenceTokenizer().span_tokenize(text)`` gives them.

    >>> punkt_spans("(It works.) Yes! 3. Next")
    [(0, 11), (12, 16), (17, 19), (20, 24)]
    """
    slices = list(_sentences(text))
    out: list[Span] = []
    shift = 0
    for k, (start, end) in enumerate(slices):
        start += shift
        if k + 1 == len(slices):
            if start < end:
                out.append((start, end))
            break
        nxt, nxt_end = slices[k + 1]
        m = _REALIGN.match(text, nxt, nxt_end)
        if m is not None:
            out.append((start, nxt + len(m.group().rstrip())))
            shift = m.end() - nxt
        else:
            shift = 0
            if start < end:
                out.append((start, end))
    return out


def punkt_starts(text: str) -> list[int]:
    """Where each sentence starts (LlamaIndex cuts a text at these and keeps the rest whole)."""
    return [s for s, _ in punkt_spans(text)]
