"""How long a span is. The tokenizer registry (`_tokenizers`), the pure-Python
BPE (`_bpe`), the estimate (`_estimate`), a model's tokenizer.json (`_hf/`) and the measures that
size any span of a document in the chosen unit (`_measure`).

Private: the public API is `chunker` itself."""
