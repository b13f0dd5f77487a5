"""What a run is asked to do: the settings registry and `Settings` (`_settings`), starting points
and model limits (`_presets`).

Private: the public API is `chunker` itself."""
