"""Specification of the one sanitizer (domain/text.py) and of its users: the context
window's clean_text, the store's storable_text and the export's _clean / _label."""

from __future__ import annotations

import lxml.etree
import pytest
from hypothesis import given
from hypothesis import strategies as st

from roundtable_desktop.context.sanitize import clean_text
from roundtable_desktop.domain.text import (
    label_text,
    remember_utf8,
    storable_text,
    storable_utf8,
    storable_utf8_pieces,
    xml_text,
)
from roundtable_desktop.store import export
from roundtable_desktop.store.redaction import storable_json
from roundtable_desktop.store.redaction import storable_text as store_storable_text

BIDI_CONTROLS = [
    pytest.param("\u202a", id="LRE"), pytest.param("\u202b", id="RLE"),
    pytest.param("\u202c", id="PDF"), pytest.param("\u202d", id="LRO"),
    pytest.param("\u202e", id="RLO"), pytest.param("\u2066", id="LRI"),
    pytest.param("\u2067", id="RLI"), pytest.param("\u2068", id="FSI"),
    pytest.param("\u2069", id="PDI"), pytest.param("\u200e", id="LRM"),
    pytest.param("\u200f", id="RLM"), pytest.param("\u061c", id="ALM"),
]  # fmt: skip
XML_ILLEGAL = [
    pytest.param("\x00", id="NUL"), pytest.param("\x08", id="backspace"),
    pytest.param("\x0b", id="vertical-tab"), pytest.param("\x0c", id="form-feed"),
    pytest.param("\x1f", id="unit-separator"), pytest.param("\ufffe", id="U+FFFE"),
    pytest.param("\uffff", id="U+FFFF"),
]  # fmt: skip
KEPT = [
    pytest.param("a\tb\nc\rd", id="tab-lf-cr"),
    pytest.param("café 日本 🙂", id="non-ascii"),
    pytest.param("\ufffd", id="replacement-char"),
    pytest.param("\x7f\x85", id="del-and-c1-are-legal-xml"),
    pytest.param("مرحبا", id="arabic-without-marks"),
    pytest.param("", id="empty"),
]

# Any code point, lone surrogates included (hypothesis leaves them out by default), with
# the troublesome ones drawn often rather than by luck.
ANY_TEXT = st.text(
    st.one_of(
        st.characters(codec=None, categories=None, exclude_categories=()),
        st.sampled_from(["\ud800", "\udfff", "\x00", "\x0b", "\ufffe", "\u202e", "\u200e",
                         "\u200f", "\u061c", "\u2066"]),
    )
)


@pytest.mark.parametrize("char", BIDI_CONTROLS)
def test_label_text_removes_every_bidi_control(char):
    assert label_text(f"Safe{char}Title") == "SafeTitle"


@pytest.mark.parametrize("char", BIDI_CONTROLS)
def test_export_label_removes_every_bidi_control(char):
    assert export._label(f" Safe{char}Title ") == "SafeTitle"


@pytest.mark.parametrize("char", ["\u200e", "\u200f", "\u061c"])
def test_export_label_removes_the_marks_it_used_to_miss(char):
    assert char not in export._label(f"gpt{char}-4o{char}")


@pytest.mark.parametrize("char", BIDI_CONTROLS)
def test_the_context_window_removes_every_bidi_control(char):
    assert clean_text(f"Safe{char}Title") == "SafeTitle"


@pytest.mark.parametrize("char", BIDI_CONTROLS)
def test_xml_text_keeps_bidi_controls_in_prose(char):
    assert xml_text(f"a{char}b") == f"a{char}b"


@pytest.mark.parametrize("char", XML_ILLEGAL)
def test_xml_illegal_characters_are_removed(char):
    assert xml_text(f"a{char}b") == "ab"
    assert label_text(f"a{char}b") == "ab"
    assert export._clean(f"a{char}b") == "ab"
    assert clean_text(f"a{char}b") == "ab"


@pytest.mark.parametrize("text", KEPT)
def test_legal_text_passes_unchanged(text):
    assert xml_text(text) == label_text(text) == storable_text(text) == text


@pytest.mark.parametrize(
    "sanitize",
    [
        pytest.param(storable_text, id="storable_text"),
        pytest.param(store_storable_text, id="store.storable_text"),
        pytest.param(xml_text, id="xml_text"),
        pytest.param(label_text, id="label_text"),
        pytest.param(export._clean, id="export._clean"),
        pytest.param(export._label, id="export._label"),
        pytest.param(clean_text, id="context.clean_text"),
    ],
)
@pytest.mark.parametrize("surrogate", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_a_lone_surrogate_becomes_the_replacement_character(sanitize, surrogate):
    assert sanitize(f"ok {surrogate} still here") == "ok \ufffd still here"


@pytest.mark.parametrize("char", [*XML_ILLEGAL, *BIDI_CONTROLS])
def test_storable_text_changes_nothing_but_lone_surrogates(char):
    assert storable_text(f"a{char}b") == f"a{char}b"


def test_storable_json_replaces_a_lone_surrogate_in_any_value():
    assert storable_json({"text": "x\ud800"}) == '{"text":"x\ufffd"}'


def test_the_store_uses_the_domain_sanitizer():
    assert store_storable_text is storable_text


@given(ANY_TEXT)
def test_xml_text_is_always_accepted_by_lxml_and_encodes_as_utf8(text):
    cleaned = xml_text(text)
    lxml.etree.Element("p").text = cleaned
    cleaned.encode("utf-8")


@given(ANY_TEXT)
def test_a_label_never_holds_a_bidi_control_or_a_surrogate(text):
    label = export._label(text)
    assert not any(c in label for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068"
                   "\u2069\u200e\u200f\u061c")
    label.encode("utf-8")


@given(ANY_TEXT)
def test_sanitizing_twice_changes_nothing_more(text):
    assert xml_text(xml_text(text)) == xml_text(text)
    assert label_text(label_text(text)) == label_text(text)


def test_remembered_utf8_is_given_for_that_text_object_only():
    text = "caf\u00e9 " * 1000
    head, tail = text[:2000].encode(), text[2000:].encode()
    remember_utf8(text, [head, tail])
    assert storable_utf8_pieces(text)[0] is head and storable_utf8_pieces(text)[1] is tail
    assert storable_utf8(text) == text.encode()
    equal = "".join(["caf\u00e9 "] * 1000)  # equal, another object: encoded as ever
    assert storable_utf8_pieces(equal) == [text.encode()]


def test_only_the_newest_remembered_texts_are_kept():
    texts = [f"text {i} \u00e9" for i in range(40)]
    pieces = [[text.encode()] for text in texts]
    for text, encoded in zip(texts, pieces, strict=True):
        remember_utf8(text, encoded)
    assert storable_utf8_pieces(texts[-1])[0] is pieces[-1][0]
    assert storable_utf8_pieces(texts[0])[0] is not pieces[0][0]
