"""The framework splitters the `splitter` setting reproduces, with offsets into the text."""
