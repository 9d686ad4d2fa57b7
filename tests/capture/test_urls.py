import pytest
from rewind.capture import urls
from rewind.errors import RewindError

CASES = [
    ("https://Example.COM/a?b=1#frag", "https://example.com/a?b=1"),
    ("http://example.com:80/", "http://example.com/"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
    ("https://example.com", "https://example.com/"),
    ("https://example.com/p?utm_source=x&id=3&fbclid=y", "https://example.com/p?id=3"),
    ("https://example.com/p?b=2&a=1", "https://example.com/p?b=2&a=1"),  # order kept
    ("https://user:pw@example.com/p", "https://example.com/p"),  # never store credentials
    ("  https://example.com/p  ", "https://example.com/p"),
    ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ("file:///home/me/notes.md", "file:///home/me/notes.md"),
    ("rewind://doc/abc", "rewind://doc/abc"),
]


@pytest.mark.parametrize(("raw", "expected"), CASES)
def test_normalize(raw, expected):
    assert urls.normalize(raw) == expected


@pytest.mark.parametrize("bad", ["", "   ", "not a url", "javascript:alert(1)", "http://",
                                 "https://exa\nmple.com/", "ftp://example.com/x",
                                 "http://example.com:99999/"])
def test_invalid_urls_are_refused_with_a_reason(bad):
    with pytest.raises(RewindError) as err:
        urls.normalize(bad)
    assert err.value.message


def test_too_long():
    with pytest.raises(RewindError, match="longer"):
        urls.normalize("https://example.com/" + "a" * 9000)


@pytest.mark.parametrize(("url", "domain"), [
    ("https://www.example.com/x", "example.com"),
    ("https://docs.python.org/3/", "docs.python.org"),
    ("file:///tmp/x.html", ""),
])
def test_domain(url, domain):
    assert urls.domain(url) == domain
