"""The session API: `chunk()` and `Document`, which hold a text and what measuring it cost
(`_api`), and the advice drawn from a result (`_advice`).

Private: the public API is `chunker` itself."""
