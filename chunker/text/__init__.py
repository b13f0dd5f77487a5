"""Where a text may be cut. Lines, paragraphs, words, Markdown headings and fences
(`_segments`), sentences (`_sentences`) and the punctuation they are found by (`_punct`).

Private: the public API is `chunker` itself."""
