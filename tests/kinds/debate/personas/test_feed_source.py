"""RSS and Atom feeds as a persona corpus: parsing (broken feeds too), HTML to text,
truncation, order and limit, hostile text, and one clear error per failure."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import httpx
import lxml.etree
import pytest

from roundtable_desktop.domain.text import BIDI_CONTROL, LONE_SURROGATE, XML_ILLEGAL
from roundtable_desktop.kinds.debate.persona_build.sources.errors import CorpusSourceError
from roundtable_desktop.kinds.debate.persona_build.sources.feed import read_feed
from roundtable_desktop.kinds.debate.persona_build.sources.text import (
    ELLIPSIS,
    html_to_text,
    truncate_near,
)

FEED_URL = "https://writer.example.invalid/feed"


def rss(*items: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">'
            "<channel><title>A writer</title><link>https://writer.example.invalid/</link>"
            + "".join(items) + "</channel></rss>")


def item(title: str, body: str, *, day: int | None = 1, link: str | None = None) -> str:
    date = f"<pubDate>{day:02d} Mar 2024 09:00:00 GMT</pubDate>" if day else ""
    href = link if link is not None else f"https://writer.example.invalid/p/{day}"
    return (f"<item><title>{title}</title><link>{href}</link>{date}"
            f"<description>{body}</description></item>")


def write(tmp_path: Path, text: str, name: str = "feed.xml") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return str(path)


def serving(body: bytes | str, status: int = 200,
            content_type: str = "application/rss+xml") -> httpx.MockTransport:
    data = body.encode() if isinstance(body, str) else body

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=data, headers={"Content-Type": content_type})

    return httpx.MockTransport(answer)


def refusal(source: str, **options) -> str:
    with pytest.raises(CorpusSourceError) as caught:
        read_feed(source, **options)
    return caught.value.message


# -- parsing ---------------------------------------------------------------------------------
def test_a_feed_with_malformed_entries_keeps_the_ones_that_parse(tmp_path: Path) -> None:
    feed = rss(
        item("First post", "Markets move &amp; rules follow.", day=3),
        item("Broken &bogus; entity", "Text with a raw & and an <b>unclosed tag", day=2),
        "<item><title></title><description></description></item>",  # nothing to read
        "<item><description><![CDATA[   ]]></description></item>",  # blank
        item("Last post", "An older thought.", day=1),
    )
    items = read_feed(write(tmp_path, feed))
    assert [i.title for i in items] == ["First post", "Broken &bogus; entity", "Last post"]
    assert items[1].text == "Text with a raw & and an unclosed tag"
    assert items.skipped == 2
    assert "2 unreadable posts" in items.notice


def test_a_feed_where_no_entry_parses_says_how_many_were_skipped(tmp_path: Path) -> None:
    feed = rss(*["<item><title></title><description></description></item>"] * 3)
    message = refusal(write(tmp_path, feed))
    assert "has 3 posts, but none could be read" in message
    assert "feed.xml" in message


def test_an_atom_feed_is_read_newest_first(tmp_path: Path) -> None:
    atom = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Notes</title><id>urn:x</id>
<updated>2024-05-02T00:00:00Z</updated>
<entry><title>Older</title><id>urn:1</id><link href="https://notes.example.invalid/1"/>
<published>2024-04-01T08:00:00Z</published><updated>2024-04-01T08:00:00Z</updated>
<content type="html">&lt;p&gt;The older entry.&lt;/p&gt;</content></entry>
<entry><title>Newer</title><id>urn:2</id><link href="https://notes.example.invalid/2"/>
<published>2024-05-01T08:00:00Z</published><updated>2024-05-01T08:00:00Z</updated>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>The newer entry.</p>
</div></content></entry>
</feed>"""
    items = read_feed(write(tmp_path, atom, "notes.atom"))
    assert [i.title for i in items] == ["Newer", "Older"]
    assert items[0].text == "The newer entry."
    assert items[0].url == "https://notes.example.invalid/2"
    assert datetime.fromisoformat(items[0].published) == datetime.fromisoformat(
        "2024-05-01T08:00:00+00:00")
    assert items[0].kind == "post"


def test_html_bodies_become_text_without_scripts(tmp_path: Path) -> None:
    body = ("<p>First paragraph with <b>bold</b> words.</p>"
            "<script>alert('stolen')</script><style>p { color: red }</style>"
            "<p>Second<br/>line, &amp; more.</p>")
    feed = rss(f"<item><title>Post</title><link>https://w.example.invalid/1</link>"
               f"<content:encoded><![CDATA[{body}]]></content:encoded>"
               f"<description>short teaser</description></item>")
    [post] = read_feed(write(tmp_path, feed))
    assert post.text == "First paragraph with bold words.\n\nSecond\nline, & more."
    assert "alert" not in post.text and "color" not in post.text


def test_plain_text_entries_keep_their_angle_brackets(tmp_path: Path) -> None:
    atom = """<feed xmlns="http://www.w3.org/2005/Atom"><title>n</title><id>urn:n</id>
<entry><title type="text">Why a &lt;b&gt; tag?</title><id>urn:1</id>
<content type="text">Compare x &lt;tag&gt; y.</content></entry></feed>"""
    [post] = read_feed(write(tmp_path, atom))
    assert post.title == "Why a <b> tag?"
    assert post.text == "Compare x <tag> y."


def test_html_to_text_drops_script_and_style_content() -> None:
    text = html_to_text("<div>Kept<script>var x = 1;</script><style>.a{}</style> text</div>")
    assert text == "Kept text"


def test_long_posts_are_cut_near_two_thousand_characters(tmp_path: Path) -> None:
    sentences = " ".join(f"Sentence number {n} makes a point." for n in range(200))
    [post] = read_feed(write(tmp_path, rss(item("Long", sentences))))
    assert 1800 <= len(post.text) <= 2000
    assert post.text.endswith("." + ELLIPSIS)
    assert sentences.startswith(post.text[:-1])


def test_truncation_falls_back_to_a_word_boundary() -> None:
    text = "word " * 1000
    cut = truncate_near(text, 2000)
    assert len(cut) <= 2000
    assert cut.endswith("word" + ELLIPSIS)


def test_a_short_text_is_not_cut() -> None:
    assert truncate_near("Short.", 2000) == "Short."


def test_max_chars_is_honoured(tmp_path: Path) -> None:
    [post] = read_feed(write(tmp_path, rss(item("P", "A sentence. " * 100))), max_chars=300)
    assert len(post.text) <= 300


def test_at_most_limit_posts_newest_first(tmp_path: Path) -> None:
    feed = rss(*[item(f"Post {day}", f"Body {day}.", day=day) for day in range(1, 29)])
    items = read_feed(write(tmp_path, feed))
    assert len(items) == 20
    assert items[0].title == "Post 28"
    assert [i.title for i in read_feed(write(tmp_path, feed), limit=3)] == [
        "Post 28", "Post 27", "Post 26"]


def test_only_web_links_are_kept(tmp_path: Path) -> None:
    feed = rss(item("P", "Body.", link="javascript:alert(1)"))
    [post] = read_feed(write(tmp_path, feed))
    assert post.url == ""


def test_hostile_characters_come_out_as_safe_text(tmp_path: Path) -> None:
    hostile = ("Evil \u202ereversed\u2066 text, a NUL &#0; here, a surrogate &#xD800; "
               "there, &#x110000; beyond, and a raw \u202e one")
    feed = rss(item("Title \u202e&#xD800;", hostile), item("Second", "&lt;p&gt;x &amp;#xD800;"
                                                             " y &amp;#0; z&lt;/p&gt;", day=2))
    items = read_feed(write(tmp_path, feed))
    for post in items:
        for text in (post.text, post.title):
            assert not BIDI_CONTROL.search(text)
            assert not LONE_SURROGATE.search(text)
            assert not XML_ILLEGAL.search(text)
            text.encode("utf-8")
            lxml.etree.Element("p").text = text  # lxml takes it
    assert "reversed" in items[1].text


# -- fetching and errors ---------------------------------------------------------------------
def test_a_feed_is_fetched_by_url() -> None:
    items = read_feed(FEED_URL, transport=serving(rss(item("Fetched", "Over the wire."))))
    assert [i.text for i in items] == ["Over the wire."]


def test_a_network_failure_names_the_feed() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    message = refusal(FEED_URL, transport=httpx.MockTransport(refuse))
    assert message.startswith(f"Could not reach the feed {FEED_URL}")


def test_a_timeout_names_the_feed() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out", request=request)

    assert "did not answer in time" in refusal(FEED_URL, transport=httpx.MockTransport(slow))


@pytest.mark.parametrize(("status", "words"), [(404, "was not found (HTTP 404)"),
                                               (503, "server error (HTTP 503)"),
                                               (403, "refused access (HTTP 403)"),
                                               (429, "rate-limiting")])
def test_an_http_status_names_the_feed(status: int, words: str) -> None:
    message = refusal(FEED_URL, transport=serving("nope", status=status))
    assert FEED_URL in message and words in message


def test_the_feed_is_named_without_its_credentials() -> None:
    secret_url = "https://reader:pa55word@writer.example.invalid/feed?token=s3cr3t-token"
    message = refusal(secret_url, transport=serving("nope", status=500))
    assert "pa55word" not in message and "s3cr3t-token" not in message
    assert "https://writer.example.invalid/feed" in message


def test_a_web_page_is_not_a_feed_and_says_where_the_feed_is() -> None:
    page = "<html><head><title>Home</title></head><body><p>Welcome</p></body></html>"
    message = refusal("https://writer.example.invalid/",
                      transport=serving(page, content_type="text/html; charset=utf-8"))
    assert "is not an RSS or Atom feed" in message
    assert "/feed" in message


def test_junk_is_not_a_feed(tmp_path: Path) -> None:
    assert "is not an RSS or Atom feed" in refusal(write(tmp_path, "just { some } text"))


def test_an_empty_feed_is_an_error(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, rss()))
    assert message.endswith("has no posts.")
    assert "feed.xml" in message


def test_a_missing_file_is_neither_address_nor_file(tmp_path: Path) -> None:
    message = refusal(str(tmp_path / "missing.xml"))
    assert "neither a web address" in message and "missing.xml" in message
