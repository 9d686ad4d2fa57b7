"""Pages under real host names for the capture tests (served by demo.sites.NamedSites).

Each page carries one made-up word (`mark`) found nowhere else, so a test can ask the
host's store and its search whether any of the page reached it. `SENSITIVE` holds one
page per built-in category of policy.json (an inbox, an account summary, a token
settings page, a checking account, a patient-portal message, a tax account, an adult
site, a results page); `ARTICLES` holds pages ABOUT those topics, which must be recorded.
The other pages probe extraction: hidden and typed text, shadow roots, frames, a page
that replaces its content, password and payment fields.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Page:
    url: str  # https://host/path (the query string is ignored by the server)
    title: str
    mark: str  # the made-up word only this page has
    body: str  # HTML inside <body>
    head: str = ""
    lang: str = "en"

    @property
    def file(self) -> str:
        rest = self.url.split("://", 1)[1].split("#", 1)[0].split("?", 1)[0]
        host, _, path = rest.partition("/")
        if not path or path.endswith("/"):
            path += "index.html"
        elif "." not in path.rsplit("/", 1)[-1]:
            path += ".html"
        return f"{host}/{path}"

    def html(self) -> str:
        return (
            f'<!doctype html><html lang="{self.lang}"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title>{self.head}</head>"
            f"<body>{self.body}</body></html>"
        )


def article(title: str, mark: str, *paragraphs: str, chrome: str = "") -> str:
    """An article body: site chrome, then the text with the page's made-up word in it."""
    paras = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<header><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>{chrome}</header>"
        f"<main><article><h1>{html.escape(title)}</h1>{paras}"
        f"<p>Readers who remember the word {mark} can find this page again.</p></article></main>"
        "<footer>Served by Rewind's browser tests.</footer>"
    )


def _account(title: str, mark: str, lines: list[str]) -> str:
    rows = "".join(f"<li>{line}</li>" for line in lines)
    return f"<main><h1>{html.escape(title)}</h1><ul>{rows}</ul><p>Reference {mark}.</p></main>"


SENSITIVE: list[Page] = [
    Page("https://mail.google.com/mail/u/0/", "Inbox (3) - maya@example.com - Gmail", "inboxquorl",
         _account("Inbox", "inboxquorl", [
             "Dr. Patel — Your test results are ready, please call the office",
             "Landlord — Rent for December and the broken heater",
             "Bank alert — A payment of 1,240.00 was made from your account"])),
    Page("https://www.paypal.com/myaccount/summary", "Summary - PayPal", "paypalvesk",
         _account("PayPal balance", "paypalvesk", [
             "Balance available: 2,318.44 USD", "Sent to J. Moreno: 120.00 USD on Nov 20",
             "Received from ACME Payroll: 1,950.00 USD"])),
    Page("https://github.com/settings/tokens", "Personal access tokens (classic)", "tokenbrix",
         _account("Personal access tokens", "tokenbrix", [
             "deploy-bot — repo, workflow — expires in 7 days",
             "laptop-cli — read:packages — last used within the last week",
             "Tokens you have generated that can be used to access the GitHub API"])),
    Page("https://www.chase.com/personal/checking", "Chase Total Checking - Account activity",
         "checkingzulp",
         _account("Total Checking (...4410)", "checkingzulp", [
             "Present balance 4,802.17", "Nov 21 Grocery market -84.20",
             "Nov 20 Direct deposit ACME Payroll +1,950.00"])),
    Page("https://mychart.clevelandclinic.org/MyChart/app/communication-center/conversation",
         "MyChart - Message from your care team", "mychartplov",
         _account("Message from Dr. Patel's office", "mychartplov", [
             "Your lipid panel results are back and your cholesterol is slightly high",
             "Please schedule a follow-up visit within the next three months",
             "Reply to this message if you have questions about your medication"])),
    Page("https://www.tax.service.gov.uk/personal-account", "Personal tax account - GOV.UK",
         "taxaccountwib",
         _account("Your personal tax account", "taxaccountwib", [
             "Tax code 1257L for your employment with ACME Ltd",
             "You owe 312.40 for the 2025 to 2026 tax year",
             "Your State Pension forecast is ready to view"])),
    Page("https://www.pornhub.com/", "Adult videos", "adultsnerk",
         _account("Adult site", "adultsnerk", [
             "This stands in for an adult site's front page", "Categories and recommendations",
             "A person would not want this remembered"])),
    Page("https://www.google.com/search?q=blue+whale+song", "blue whale song - Google Search",
         "searchgrelp",
         _account("Results for blue whale song", "searchgrelp", [
             "Whale song - Wikipedia: songs of humpback and blue whales",
             "Why do blue whales sing? A marine biology explainer",
             "Listen to recordings of blue whale calls from the Pacific"])),
]

ARTICLES: list[Page] = [
    Page("https://developer.mozilla.org/en-US/docs/Web/HTTP/Authentication",
         "HTTP authentication - HTTP | MDN", "mdnauthflim",
         article("HTTP authentication", "mdnauthflim",
                 "HTTP provides a general framework for access control and authentication. "
                 "A server can challenge a client request, and a client can provide "
                 "authentication information in the Authorization header.",
                 "The challenge and response flow works like this: the server responds with a "
                 "401 Unauthorized status and a WWW-Authenticate header naming the scheme.")),
    Page("https://en.wikipedia.org/wiki/OAuth", "OAuth - Wikipedia", "oauthtrop",
         article("OAuth", "oauthtrop",
                 "OAuth is an open standard for access delegation, commonly used as a way for "
                 "people to grant websites or applications access to their information on "
                 "other websites without giving them their passwords.",
                 "OAuth 2.0 defines several grant types, among them the authorization code "
                 "grant, which exchanges a short-lived code for an access token.")),
    Page("https://en.wikipedia.org/wiki/Single_sign-on", "Single sign-on - Wikipedia", "ssomuvo",
         article("Single sign-on", "ssomuvo",
                 "Single sign-on is an authentication scheme that allows a user to log in with "
                 "a single identity to any of several related, yet independent, software systems.",
                 "True single sign-on lets the user log in once and access services without "
                 "entering authentication factors again.")),
    Page("https://en.wikipedia.org/wiki/Online_banking", "Online banking - Wikipedia",
         "bankingdorv",
         article("Online banking", "bankingdorv",
                 "Online banking, also known as internet banking, is an electronic payment system "
                 "that enables customers of a bank to conduct a range of financial transactions "
                 "through the financial institution's website.",
                 "The first home banking services were offered to consumers in the early 1980s "
                 "and needed a terminal or a television set and a telephone line.")),
    Page("https://www.investopedia.com/how-to-pay-off-debt", "How to Pay Off Debt: 7 Strategies",
         "debtkrimble",
         article("How to pay off debt", "debtkrimble",
                 "The avalanche method pays the debt with the highest interest rate first while "
                 "making minimum payments on the others, which costs the least in interest.",
                 "The snowball method pays the smallest balance first; the quick wins keep many "
                 "people motivated long enough to finish.")),
    Page("https://en.wikipedia.org/wiki/Patient_portal", "Patient portal - Wikipedia", "portalfesk",
         article("Patient portal", "portalfesk",
                 "Patient portals are healthcare-related online applications that allow patients "
                 "to interact and communicate with their healthcare providers.",
                 "Portals typically let patients view test results, request prescription refills "
                 "and send secure messages to their physicians.")),
    Page("https://en.wikipedia.org/wiki/Web_search_engine", "Search engine - Wikipedia",
         "searchengvolt",
         article("Search engine", "searchengvolt",
                 "A search engine is a software system that provides hyperlinks to web pages and "
                 "other relevant information on the Web in response to a user's query.",
                 "Crawlers visit pages, an indexer records their words, and a ranking step "
                 "orders the results by relevance.")),
    Page("https://en.wikipedia.org/wiki/Tax_return", "Tax return - Wikipedia", "taxreturnplim",
         article("Tax return", "taxreturnplim",
                 "A tax return is the completion of documentation that calculates an entity's "
                 "income earned and the amount of taxes to be paid to the government.",
                 "Many countries let people file their returns online through a government "
                 "portal, often with much of the information filled in already.")),
]

# Extraction probes on one host of their own.
READER = "https://www.fieldnotes.org"


def extraction_pages() -> list[Page]:
    style = "<style>.spoiler{display:none}.ghost{visibility:hidden}.faint{opacity:0}</style>"
    return [
        Page(f"{READER}/draft-and-hidden", "Notes on river otters - otter.warden@fieldnotes.org",
             "otterglimp", head=style, body=(
            article("Notes on river otters", "otterglimp",
                    "River otters hunt at dusk along muddy banks and can hold their breath for "
                    "up to eight minutes while they chase fish between the reeds.",
                    "<span class='spoiler'>The stylesheet hides this: cssveilword.</span>",
                    "<span aria-hidden='true'>A screen reader skips this: ariaveilword.</span>"
                    " Their dens, called holts, have an underwater entrance.",
                    "Sightings go to the warden, otter.warden@fieldnotes.org, or by phone on "
                    "+44 20 7946 0958.")
            + "<section><h2>Leave a comment</h2>"
              "<div contenteditable='true'>Dear bank, please move everything from account "
              "4410 to my savings, draftveilword</div>"
              "<textarea>fieldveilword in a text area</textarea>"
              "<div class='ghost'>Invisible ghostveilword text.</div>"
              "<div class='faint'>Transparent faintveilword text.</div>"
              "<template><p>templateveilword</p></template></section>")),
        Page(f"{READER}/components", "Migratory birds of the coast", "birdtrelk", body=(
            article("Migratory birds of the coast", "birdtrelk",
                    "Each autumn millions of shorebirds stop on the mudflats to feed before they "
                    "cross the ocean, doubling their weight in a few weeks.",
                    "<bird-card>slotlightword <span slot='note'>Slotted note about "
                    "slottedwarbler flocks resting on the jetty.</span></bird-card>",
                    "<iframe src='/frame-inner' title='More about terns' width='600' "
                    "height='200'></iframe>")
            + "<script>customElements.define('bird-card', class extends HTMLElement {"
              " constructor() { super(); const r = this.attachShadow({mode: 'open'});"
              " r.innerHTML = '<style>p{margin:4px}</style><p>Inside the shadow root, the "
              "arctic tern shadowternword flies from pole to pole every year.</p>"
              "<p><slot name=\"note\"></slot></p>'; } });</script>")),
        Page(f"{READER}/frame-inner", "Terns", "frameternword", body=(
            "<p>Common terns frameternword dive for small fish and nest in colonies on "
            "gravel beaches along the coast.</p>")),
        Page(f"{READER}/spa", "Loading", "spaplaceholder", body=(
            "<main id='app'><p>Loading the app, spaplaceholder, please wait.</p></main>"
            "<script>setTimeout(() => { document.title = 'Glaciers of Patagonia';"
            " document.getElementById('app').innerHTML = '<article><h1>Glaciers of "
            "Patagonia</h1><p>The Perito Moreno glacier spafirstword advances across Lake "
            "Argentino and regularly dams its southern arm until the water breaks through.</p>"
            "<p>Visitors watch walls of ice collapse from walkways on the peninsula.</p>"
            "</article>'; }, 300);</script>")),
        Page(f"{READER}/members/welcome", "Welcome back - Field Notes", "signinword", body=(
            "<main><h1>Sign in to Field Notes</h1><form><label>Email <input name='email'>"
            "</label><label>Password <input type='password' name='password'></label>"
            "<button>Sign in</button></form><p>New here? Create an account to save your "
            "favourite notes, signinword.</p></main>")),
        Page(f"{READER}/shop/order", "Your order - Field Notes shop", "checkoutword", body=(
            "<main><h1>Pay for your order</h1><p>Two field guides and a pair of binoculars, "
            "shipped within three days, checkoutword.</p><form>"
            "<label>Card number <input autocomplete='cc-number' name='cardnumber'></label>"
            "<label>Expiry <input autocomplete='cc-exp'></label>"
            "<label>CVC <input autocomplete='cc-csc' name='cvc'></label></form></main>")),
        Page(f"{READER}/with-login-box", "Beavers build dams", "beaverplunk", body=article(
            "Beavers build dams", "beaverplunk",
            "Beavers fell trees with their teeth and build dams of branches and mud that turn "
            "streams into ponds, which protect their lodges from predators.",
            "A family can build a small dam in a few nights and keeps repairing it for years.",
            chrome="<form class='login'><input name='user' placeholder='User name'>"
                   "<input type='password' placeholder='Password'><button>Log in</button></form>")),
        Page(f"{READER}/crash-page", "A page that stops the helper", "crashwordvex", body=article(
            "A page that stops the helper", "crashwordvex",
            "The browser test makes Rewind's helper exit whenever this page arrives, to show "
            "that the queue gives up on it after three tries and goes on with the others.")),
    ]


def write_named_sites(root: Path, extra: list[Page] | None = None) -> list[Page]:
    """Every capture page (and `extra` ones) under `root/<host>/...`; returns them."""
    pages = [*SENSITIVE, *ARTICLES, *extraction_pages(), *(extra or [])]
    for p in pages:
        dest = root / p.file
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(p.html(), encoding="utf-8")
    return pages
