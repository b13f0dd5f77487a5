"""chunker/session/_advice.py: what the document looks like, and remarks that never contradict the
settings they are about."""

from __future__ import annotations

import inspect
import itertools
import json
import subprocess

import pytest

import chunker
from chunker.session._advice import content_type, model_limit, pitfalls
from tests.texts import PRIMER, ROOT, sample_document

CHAT = "".join(f"User: question {i} about my order?\nAssistant: answer {i}, shipped on day {i}.\n" for i in range(12))
FAQ = "".join(f"How do I change setting {i}?\nOpen the panel and pick option {i}.\n\n" for i in range(10))
DOCS = {
    "sample": sample_document(),
    "readme": (ROOT / "README.md").read_text(encoding="utf-8"),
    "prose": PRIMER * 6,
    "chat": CHAT,
    "faq": FAQ,
}


def _valid(settings: chunker.Settings, suggest: dict) -> bool:
    try:
        chunker.Settings(**{**settings.to_dict(), **suggest})
        return True
    except chunker.ChunkerError:
        return False


CASES = list(
    itertools.product(DOCS, chunker.STRATEGIES, chunker.UNITS, (None, "minilm", "openai", "120"), ((90, "10%"), (900, 300)))
)


@pytest.mark.parametrize("doc, strategy, unit, limit, size_overlap", CASES)
def test_no_tip_proposes_what_is_already_set_or_breaks_the_limit(doc, strategy, unit, limit, size_overlap):
    size, overlap = size_overlap
    res = chunker.chunk(DOCS[doc], strategy=strategy, unit=unit, size=size, overlap=overlap)
    advice = chunker.advise(DOCS[doc], res, limit=limit)
    s = res.settings
    model = model_limit(limit)
    for tip in advice.tips:
        for key, value in tip.suggest.items():
            current = getattr(s, key)
            if isinstance(value, tuple):
                assert value and current not in value, (tip.code, key)
            else:
                assert str(value) != str(current), (tip.code, key, value)
        if tip.apply is not None:
            assert _valid(s, tip.apply), tip
        size_after = tip.suggest.get("size")
        unit_after = tip.suggest.get("unit", s.unit)
        if model is not None and size_after is not None and unit_after == "tokens":
            assert size_after <= model.tokens, (tip.code, size_after)  # never past the model's limit
        if tip.code == "over_limit":
            assert ("Size in tokens" in tip.message) == (unit != "tokens")
            assert ("Lower the size" in tip.message) == (unit == "tokens" and size > model.tokens)
    codes = [t.code for t in advice.tips]
    assert codes == [t.code for t in sorted(advice.tips, key=lambda t: t.level != "warn")]
    assert len(codes) == len(set(codes))
    json.dumps(advice.to_dict())  # plain data: the page renders it, the CLI prints it


def test_the_limit_warning_names_how_many_and_the_model():
    text = sample_document()
    res = chunker.chunk(text, strategy="fixed", size=300, overlap="60%")
    over = sum(c.tokens > 256 for c in res.chunks)
    said = {t.code: t.message for t in chunker.advise(text, res, limit="minilm").tips}
    assert over and said["over_limit"].startswith(f"{over} of {len(res.chunks)} chunks exceed the 256-token")
    assert "all-MiniLM-L6-v2" in said["over_limit"] and "over 50%" in said["overlap_high"]
    fine = {t.code for t in chunker.advise(text, res, limit="openai").tips}
    assert "over_limit" not in fine and "fits_limit" in fine


def test_mid_sentence_cuts_get_a_structure_aware_strategy_only_from_fixed_windows():
    text = sample_document()
    res = chunker.chunk(text, strategy="fixed", unit="chars", size=200, overlap=0)
    tip = next(t for t in chunker.advise(text, res).tips if t.code == "mid_sentence")
    assert tip.suggest == {"strategy": ("markdown", "recursive")}
    res = chunker.chunk(text, strategy="markdown", size=30, overlap=0)
    for t in chunker.advise(text, res).tips:
        assert t.suggest.get("strategy") in (None, "recursive") or "markdown" not in t.suggest.get("strategy", ())


def test_the_starting_point_is_capped_at_the_models_limit():
    text = sample_document()  # technical: 1,024 tokens as a start
    res = chunker.chunk(text, size=500, overlap=50)
    tip = next(t for t in chunker.advise(text, res, limit="minilm").tips if t.code == "content_type")
    assert tip.apply == {"size": 256, "overlap": "10%"} and "capped at the 256-token" in tip.message
    longer = "\n\n".join([text] * 3)  # the sample alone is shorter than 1,024 tokens
    res = chunker.chunk(longer, size=500, overlap=50)
    tip = next(t for t in chunker.advise(longer, res).tips if t.code == "content_type")
    assert tip.apply == {"size": 1024, "overlap": "10%"}


def test_overlap_asked_and_achieved_are_said_when_they_differ():
    text = sample_document()
    res = chunker.chunk(text, strategy="markdown", size=200, overlap=30)
    tip = next(t for t in chunker.advise(text, res).tips if t.code == "overlap_not_achieved")
    assert "asked: 30 tokens" in tip.message and "sections never share text" in tip.message
    res = chunker.chunk(text, strategy="fixed", size=200, overlap=30)
    assert "overlap_not_achieved" not in {t.code for t in chunker.advise(text, res).tips}


@pytest.mark.parametrize(
    "text, kind",
    [
        (CHAT, "chat"),
        (FAQ, "faq"),
        (sample_document(), "technical"),
        ("A plain paragraph of prose. It has sentences.\n\nAnother paragraph follows here.", "general"),
        ("   \n", None),
    ],
)
def test_content_type_picks_a_starting_point(text, kind):
    assert content_type(text) == kind


def test_pitfalls_are_detected():
    def said(text):
        return " ".join(t.message for t in pitfalls(text))

    assert "JSON" in said(json.dumps([{"id": i, "body": "text " * 5} for i in range(20)]))
    assert "CSV" in said("id,name,price\n" + "".join(f"{i},item {i},{i}.5\n" for i in range(30)))
    assert "source code" in said(inspect.getsource(subprocess))
    assert "byte order mark" in said("\ufeffTitle\n\nBody.")
    assert "2 invisible" in said("no\u00a0break and zero\u200bwidth")
    assert said(sample_document()) == ""


def test_model_limits():
    assert model_limit("bge").tokens == 512 and model_limit(None) is None and model_limit("77").tokens == 77
    for bad in ("bert", "-5", "0", "1e3"):
        with pytest.raises(chunker.ChunkerError, match="model limit"):
            model_limit(bad)


def test_a_q_and_a_list_is_an_faq_not_a_chat():
    text = "".join(f"Q: How do I reset setting {i}?\nA: Open the panel and press reset {i}.\n" for i in range(8))
    assert content_type(text) == "faq"
    assert content_type(CHAT) == "chat"


def test_source_code_is_code_in_the_kind_and_the_tips_alike():
    text = inspect.getsource(subprocess)
    res = chunker.chunk(text, size=300, overlap=0)
    advice = chunker.advise(text, res)
    assert advice.content_type == "code"
    words = " ".join(t.message for t in advice.tips).lower()
    assert "source code" in words and "prose" not in words


def test_a_starting_point_the_whole_document_fits_in_is_not_suggested():
    text = sample_document()
    res = chunker.chunk(text, size=150, overlap=0, tokenizer="o200k")
    assert content_type(text) == "technical" and res.stats.document_tokens < chunker.PRESETS["technical"].size
    tip = next(t for t in chunker.advise(text, res).tips if t.code == "content_type")
    assert not tip.suggest and "one chunk" in tip.message and f"{res.stats.document_tokens:,} tokens" in tip.message


def test_the_advice_offers_the_code_strategy_for_code_and_not_once_it_is_used():
    text = inspect.getsource(subprocess)
    res = chunker.chunk(text, size=300, overlap=0)
    tips = {t.code: t for t in chunker.advise(text, res).tips}
    assert tips["content_type"].suggest["strategy"] == "code" and "the code strategy" in tips["content_type"].message
    assert tips["code"].apply == {"strategy": "code"}
    used = chunker.chunk(text, strategy="code", size=400, overlap="10%")
    tips = {t.code: t for t in chunker.advise(text, used).tips}
    assert "code" not in tips and "(these settings)" in tips["content_type"].message
    # Prose and Markdown are not offered it.
    for prose in (sample_document(), "A plain paragraph of prose. It has sentences.\n\nAnother one here."):
        advice = chunker.advise(prose, chunker.chunk(prose, size=100, overlap=0))
        assert all(t.suggest.get("strategy") != "code" for t in advice.tips)
