"""The records a split becomes (`Chunk`, `ChunkResult`, `Stats` in `_records`)
and the export formats they are written in (`_export`).

Private: the public API is `chunker` itself."""
