import pytest
from rewind.capture.extract import decode, document_for, html_document
from rewind.errors import Code, RewindError

ARTICLE = """<html><head><title>HNSW &amp; pruning</title><script>var t = "<title>x</title>";
</script></head><body><nav>Home | About | Contact | Login</nav>
<main><h1>Graph pruning</h1><p>HNSW keeps a sparse graph by pruning neighbours.</p>
<p>The RNG rule drops an edge when a closer neighbour already covers it.</p>
<h2>Trade-offs</h2><ul><li>Recall rises with more edges per node.</li>
<li>Build time grows with the candidate list.</li></ul></main>
<footer>All rights reserved</footer></body></html>"""


def test_html_main_content_and_title():
    doc = html_document(ARTICLE + " " * 0)
    assert doc.title == "HNSW & pruning"
    texts = [b.text for b in doc.blocks]
    assert "Graph pruning" in texts[0]
    assert not any("Login" in t or "rights reserved" in t for t in texts)  # nav, footer
    assert not any("var t" in t for t in texts)  # script text never becomes content


def test_headings_are_marked_and_break():
    doc = html_document(ARTICLE)
    heads = [b.text for b in doc.blocks if b.kind == "heading"]
    assert heads == ["Graph pruning", "Trade-offs"]
    assert any(b.kind == "list" for b in doc.blocks)


def test_thin_main_falls_back_to_body():
    html = "<body><main>Menu</main><div><p>" + "Real words of the page. " * 30 + "</p></div></body>"
    doc = html_document(html)
    assert any("Real words" in b.text for b in doc.blocks)


def test_hostile_title_is_inert_text():
    doc = html_document("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title><p>x y z</p>")
    assert doc.title == "<script>alert(1)</script>"  # text, to be shown as text


def test_markdown():
    doc = document_for("n.md", "# Notes\n\nFirst para here.\n\n- item one\n- item two\n")
    assert doc.title == "Notes"
    assert [b.kind for b in doc.blocks] == ["heading", "text", "list"]


@pytest.mark.parametrize(("data", "code"), [
    (b"", Code.BAD_INPUT), (b"   \n", Code.BAD_INPUT),
    (b"\x7fELF\x02\x01\x00\x00binary", Code.BAD_INPUT),
    (b"x" * (6 * 1024 * 1024), Code.TOO_LARGE),
])
def test_decode_refuses_what_is_not_a_document(data, code):
    with pytest.raises(RewindError) as err:
        decode(data, "f", 5 * 1024 * 1024)
    assert err.value.code == code


def test_decode_latin1_text():
    assert decode("café".encode("latin-1"), "f", 100) == "café"
