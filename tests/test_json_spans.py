"""The byte spans of JSON values, and splicing strings into a document's own bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenlab.agent.json_spans import JsonSpanError, spans, splice, string_bytes

_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text()
)
documents = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)
styles = st.sampled_from(
    [
        {},
        {"indent": 2},
        {"separators": (",", ":")},
        {"ensure_ascii": False},
        {"indent": "\t", "sort_keys": True},
    ]
)


def string_paths(value, path=()):
    if isinstance(value, str) and path:
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_paths(item, (*path, index))


@given(st.dictionaries(st.text(max_size=5), documents, max_size=5), styles)
def test_every_strings_span_holds_that_string(document, style):
    raw = json.dumps(document, **style).encode("utf-8", errors="surrogatepass")
    paths = list(string_paths(document))
    found = spans(raw, paths)
    for path in paths:
        start, end = found[path]
        value = document
        for step in path:
            value = value[step]
        assert json.loads(raw[start:end].decode("utf-8", errors="surrogatepass")) == value


@given(st.dictionaries(st.text(max_size=5), documents, min_size=1, max_size=5), styles, st.text())
def test_splicing_changes_only_the_value(document, style, new):
    raw = json.dumps(document, **style).encode("utf-8", errors="surrogatepass")
    paths = list(string_paths(document))
    if not paths:
        return
    (start, end) = spans(raw, [paths[0]])[paths[0]]
    spliced = splice(raw, {(start, end): string_bytes(new)})
    assert spliced[:start] == raw[:start] and spliced.endswith(raw[end:])
    value = json.loads(spliced.decode("utf-8", errors="surrogatepass"))
    for step in paths[0]:
        value = value[step]
    assert value == new


def test_a_repeated_key_is_found_where_json_reads_it():
    raw = b'{"a": "first", "a": "last"}'
    start, end = spans(raw, [("a",)])[("a",)]
    assert raw[start:end] == b'"last"'


def test_brackets_inside_strings_are_skipped():
    raw = b'{"x": ["]}{[", {"y": "\\"]"}], "z": "found"}'
    start, end = spans(raw, [("z",)])[("z",)]
    assert raw[start:end] == b'"found"'


def test_bytes_that_are_not_the_document_raise():
    with pytest.raises(JsonSpanError):
        spans(b'["a"', [(1,)])


def test_the_same_text_gives_the_same_bytes():
    assert string_bytes('é\n"x') == string_bytes('é\n"x') == b'"\\u00e9\\n\\"x"'
