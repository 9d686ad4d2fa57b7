"""URLs read as the browser reads them (what policy.js gets from the URL parser), and the
person's patterns."""

import pytest
from rewind.capture.weburl import host_matches, parse_web_url, path_segments, pattern_matches


@pytest.mark.parametrize(("url", "href"), [
    ("HTTPS://WWW.Example.COM./A/b?x=1#f", "https://www.example.com/a/b?x=1#f"),
    ("https://example.com:443/", "https://example.com/"),
    ("http://example.com:8080", "http://example.com:8080/"),
    ("https://example.com/a/../b/./c", "https://example.com/b/c"),
    ("https://example.com/a\\b?q=\\x", "https://example.com/a/b?q=\\x"),
    ("https://user:pw@example.com/p", "https://example.com/p"),
    ("https://bücher.example/straße", "https://xn--bcher-kva.example/stra%c3%9fe"),
    ("https://example.com/a b<c>", "https://example.com/a%20b%3cc%3e"),
])
def test_parsed_as_the_browser_does(url, href):
    u = parse_web_url(url)
    assert u is not None and u.href == href


@pytest.mark.parametrize("url", ["file:///etc/passwd", "about:blank", "not a url", "https://",
                                 "https://exa mple.com/", 42, "https://x.example/" + "a" * 9000])
def test_not_web_urls(url):
    assert parse_web_url(url) is None


def test_segments_are_decoded_lower_case_without_line_breaks():
    assert path_segments("/%53ettings//Tokens/a%0Ab/%E9") == ["settings", "tokens", "a b", "%e9"]


def test_host_matches_a_domain_and_its_subdomains_only():
    assert host_matches("a.b.example.com", "example.com")
    assert host_matches("www.example.com", "*.example.com.")
    assert not host_matches("badexample.com", "example.com")
    assert not host_matches("example.com", "")


@pytest.mark.parametrize(("pattern", "url", "hit"), [
    ("https://mail.*", "https://mail.example.com/x", True),
    ("*://*.intranet.example/*", "https://wiki.intranet.example/x", True),
    ("example.org/private", "https://www.example.org/private/x", True),
    ("example.org/private", "https://example.org/public", False),
    ("example.org", "https://sub.example.org./x", True),
    ("Salary", "https://example.org/hr/salary-bands", True),
    ("  ", "https://example.com/", False),
    ("example.com", "not a url", False),
])
def test_person_patterns(pattern, url, hit):
    assert pattern_matches(pattern, url) is hit
