"""The semantic strategy: never over the size (Hypothesis, with a real model trained here),
offsets exact, and it finds where unrelated documents meet better than chance."""

from __future__ import annotations

import functools
import random
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
from chunker import ChunkerError
from chunker import embeddings as E
from chunker.cli import main
from chunker.tokens._tokenizers import get_tokenizer
from tests import embedding_fixtures as fx
from tests.test_properties import check_invariants


@pytest.fixture(scope="module")
def model_dir():
    return fx.trained()


def _pages(n: int, seed: int, chars: int = 2500) -> list[str]:
    """n pages of the documentation's prose, far apart in its order (unrelated topics), each
    cut to whole paragraphs of about `chars` characters."""
    pages = [t for _, t in fx.english_pages() if len(t) > chars]
    rng = random.Random(seed)
    picked = rng.sample(pages, n)
    out = []
    for p in picked:
        paras, total = [], 0
        for para in p.split("\n\n"):
            paras.append(para)
            total += len(para)
            if total >= chars:
                break
        out.append("\n\n".join(paras))
    return out


@st.composite
def semantic_options(draw, folder: str):
    unit = draw(st.sampled_from(["tokens", "chars", "words"]))
    tokenizer = draw(st.sampled_from(["estimate", "approx", str(folder) + "/tokenizer.json"]))
    size = draw(st.integers(1, 300))
    overlap = draw(st.integers(0, size - 1) | st.sampled_from(["0%", "10%", "50%"]))
    min_size = draw(st.just(0) | st.integers(0, max(0, size - 1)))
    return dict(
        strategy="semantic",
        unit=unit,
        size=size,
        overlap=overlap,
        tokenizer=tokenizer,
        breaks=draw(st.lists(st.sampled_from(list(chunker.BREAKS)), min_size=1, unique=True)),
        min_size=min_size,
        embedding_model=draw(st.sampled_from([str(folder), None])),
        breakpoint_percentile=draw(st.sampled_from([0, 50, 90, 95, 100])),
    )


@functools.cache
def _six_pages() -> str:
    return "\n\n".join(_pages(6, seed=1, chars=1500))


@st.composite
def real_slices(draw):
    text = _six_pages()  # read once: the corpus is megabytes of JSON
    a = draw(st.integers(0, len(text) - 1))
    b = draw(st.integers(a, min(len(text), a + 3000)))
    return text[a:b]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_chunk_is_over_the_size_and_offsets_are_exact(model_dir, data):
    text = data.draw(real_slices() | st.text(max_size=300))
    opts = data.draw(semantic_options(model_dir))
    if opts["tokenizer"].endswith(".json"):
        res = _sizes_and_offsets(text, opts)
    else:
        res = check_invariants(text, opts)
    # The size is a hard maximum: only one character that alone counts more cannot be cut.
    assert all(len(c.text) == 1 for c in res.chunks if "oversize" in c.flags)


def _sizes_and_offsets(text, opts):
    """The invariants of check_invariants but its stats, for an exact tokenizer.json: every
    chunk a span of the text, starts ascending, no chunk over the size by its own count,
    nothing but whitespace left out."""
    res = chunker.chunk(text, **opts)
    unit = opts["unit"]
    own = len if unit == "chars" else (lambda s: len(s.split())) if unit == "words" else get_tokenizer(opts["tokenizer"]).count
    covered = [False] * len(text)
    prev = None
    for c in res.chunks:
        assert text[c.start_char : c.end_char] == c.text and c.text.strip()
        assert prev is None or c.start_char > prev.start_char
        assert "oversize" in c.flags or own(c.text) <= res.settings.size
        covered[c.start_char : c.end_char] = [True] * len(c.text)
        prev = c
    assert all(covered[k] or ch.isspace() for k, ch in enumerate(text))
    return res


def _boundaries(docs: list[str]) -> tuple[str, set[int]]:
    text = "\n\n".join(docs)
    at, starts = 0, set()
    for d in docs[:-1]:
        at += len(d) + 2
        starts.add(at)
    return text, starts


def _hits(res, starts: set[int]) -> int:
    return sum(1 for c in res.chunks[1:] if c.start_char in starts)


def _candidates(text: str) -> int:
    """Places a chunk could start: each sentence of the text (the semantic strategy's pieces)."""
    return len(chunker.chunk(text, strategy="sentence", size=0).chunks) - 1


def test_topic_changes_are_found_better_than_chance(model_dir):
    hits = chance = boundaries = 0.0
    for seed in range(4):
        text, starts = _boundaries(_pages(8, seed=seed))
        res = chunker.chunk(text, strategy="semantic", size=512, overlap=0, embedding_model=str(model_dir))
        hits += _hits(res, starts)
        # A chunking that cut as often, at sentences drawn at random, would meet a document's
        # start cuts * |starts| / sentences times on average.
        chance += (len(res.chunks) - 1) * len(starts) / _candidates(text)
        boundaries += len(starts)
    assert hits >= 3 * chance and hits >= boundaries / 3, (hits, chance, boundaries)


def test_words_alone_find_topic_changes_better_than_chance():
    hits = chance = 0.0
    for seed in range(4):
        text, starts = _boundaries(_pages(8, seed=seed))
        res = chunker.chunk(text, strategy="semantic", size=512, overlap=0)
        hits += _hits(res, starts)
        chance += (len(res.chunks) - 1) * len(starts) / _candidates(text)
    assert hits >= 3 * chance, (hits, chance)


def test_the_percentile_sets_how_often_it_breaks(model_dir):
    text, _ = _boundaries(_pages(6, seed=4))
    counts = [
        len(
            chunker.chunk(
                text, strategy="semantic", size=2000, overlap=0, embedding_model=str(model_dir), breakpoint_percentile=p
            ).chunks
        )
        for p in (50, 80, 95, 100)
    ]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1], counts


def test_model_setting_is_the_content_not_the_path(model_dir, tmp_path):
    copy = tmp_path / "renamed"
    shutil.copytree(model_dir, copy)
    a = chunker.Settings(strategy="semantic", embedding_model=str(model_dir))
    b = chunker.Settings(strategy="semantic", embedding_model=str(copy))
    assert a == b and a.embedding_model == E.load(model_dir).name
    assert chunker.Settings(strategy="semantic", embedding_model=a.embedding_model) == a


def test_bad_settings_are_one_line(tmp_path):
    for value, needle in [(101, "from 0 to 100"), ("x", "from 0 to 100"), (-1, "from 0 to 100")]:
        with pytest.raises(ChunkerError) as e:
            chunker.chunk("A. B.", strategy="semantic", breakpoint_percentile=value)
        assert needle in str(e.value) and "\n" not in str(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ChunkerError) as e:
        chunker.chunk("A. B.", strategy="semantic", embedding_model=str(tmp_path / "empty"))
    assert "model.safetensors" in str(e.value)


def test_cli_takes_the_model(model_dir, tmp_path, capsys):
    text, _ = _boundaries(_pages(3, seed=5))
    doc = tmp_path / "doc.txt"
    doc.write_text(text, encoding="utf-8")
    code = main([str(doc), "--strategy", "semantic", "--size", "200", "--embedding-model", str(model_dir), "--format", "json"])
    out = capsys.readouterr().out
    assert code in (0, None)
    want = chunker.chunk(text, strategy="semantic", size=200, embedding_model=str(model_dir))
    assert out.count('"start_char"') == len(want.chunks)
    code = main([str(doc), "--strategy", "semantic", "--embedding-model", str(tmp_path / "nowhere")])
    err = capsys.readouterr().err
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def _reference_distances(model_folder, pieces: list[str], window: int) -> list[float]:
    """1 - cosine of the windows' mean rows, in numpy float64, from model2vec's own matrix."""
    import numpy as np
    from model2vec import StaticModel

    matrix = np.asarray(StaticModel.from_pretrained(str(model_folder)).embedding, dtype=np.float64)
    rows = [matrix[ids].sum(axis=0) if ids else np.zeros(matrix.shape[1]) for ids in E.load(model_folder).tokenize(pieces)]
    out = []
    for b in range(1, len(pieces)):
        left = np.sum(rows[max(0, b - window) : b], axis=0)
        right = np.sum(rows[b : b + window], axis=0)
        nl, nr = np.linalg.norm(left), np.linalg.norm(right)
        out.append(1.0 - float(left @ right / (nl * nr)) if nl and nr else 1.0)
    return out


def test_distances_match_numpy_and_survive_values_whose_squares_overflow(model_dir, tmp_path):
    # The windows' cosines were taken from float sums of the rows: a float64 model with values
    # past 1e154 (finite, loaded) squared them to infinity, and every distance was NaN, so the
    # strategy cut nowhere, or anywhere.
    import numpy as np
    from model2vec import StaticModel

    from chunker.strategies import semantic

    text = _six_pages()
    res = chunker.chunk(text, strategy="sentence", size=0)
    starts, ends = [c.start_char for c in res.chunks], [c.end_char for c in res.chunks]
    pieces = [text[a:b] for a, b in zip(starts, ends)]
    got = semantic.model_distances(text, starts, ends, E.load(model_dir), semantic.WINDOW)
    want = _reference_distances(model_dir, pieces, semantic.WINDOW)
    assert len(got) == len(pieces) - 1 > 50
    assert got == pytest.approx(want, abs=1e-6)

    source = StaticModel.from_pretrained(str(model_dir))
    huge = fx.save(
        tmp_path / "huge",
        np.asarray(source.embedding, dtype=np.float64) * 1e200,
        (model_dir / "tokenizer.json").read_text(encoding="utf-8"),
        normalize=True,
    )
    scaled = semantic.model_distances(text, starts, ends, E.load(huge), semantic.WINDOW)
    assert scaled == pytest.approx(got, abs=1e-9)
    a = chunker.chunk(text, strategy="semantic", size=400, embedding_model=str(model_dir))
    b = chunker.chunk(text, strategy="semantic", size=400, embedding_model=str(huge))
    assert [(c.start_char, c.end_char) for c in a.chunks] == [(c.start_char, c.end_char) for c in b.chunks]
