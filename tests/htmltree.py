"""Parse the worker's HTML back, as a browser would build it: which elements exist, with what
attributes, holding what text (entities decoded)."""

from __future__ import annotations

import html.parser


class Tree(html.parser.HTMLParser):
    """Start tags with their attributes, all text, and each text's innermost element."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.stack: list[dict] = []
        self.segments: list[tuple[dict, str]] = []  # (attrs of the innermost element, text)
        self.feed(source)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ("input", "br", "img"):
            self.stack.append(dict(attrs))

    def handle_endtag(self, tag):
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        self.segments.append((self.stack[-1] if self.stack else {}, data))

    def joined(self) -> str:
        return "".join(self.text)


INJECTIONS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "'><a href=javascript:alert(1)>x</a>",
    "&lt;already escaped&gt; &amp; <b>bold</b>",
]
"""Markup a document or a setting might carry: it must stay text on the page."""


URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc"}


def harmless(source: str, allowed: set[str]) -> bool:
    """Only `allowed` tags, no event handler and no URL attribute at all (the page's fragments
    link nowhere; text that mentions javascript: in a title is just text)."""
    tree = Tree(source)
    return {tag for tag, _ in tree.tags} <= allowed and not any(
        k.startswith("on") or k in URL_ATTRIBUTES for _, a in tree.tags for k in a
    )
