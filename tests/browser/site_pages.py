"""The small local web site the browser tests read: plain articles, a sign-in page, a
hostile page, a long article in sections. Each article has its own topic and one made-up
word, so a test can tell pages apart in the store and in search results.
"""

from __future__ import annotations

import html
from pathlib import Path

# path -> (title, paragraphs)
ARTICLES: dict[str, tuple[str, list[str]]] = {
    "articles/sourdough.html": (
        "Feeding a sourdough starter",
        [
            "A sourdough starter is a colony of wild yeast and lactic acid bacteria living in "
            "flour and water. Feed it equal weights of flour and water once a day and keep the "
            "jar loosely covered on the kitchen counter.",
            "When the starter doubles within six hours and smells pleasantly sour, it is ready "
            "to leaven bread. Bakers call a very lively culture a crumbleferm, though nobody "
            "agrees where the word came from.",
            "A starter left in the fridge for weeks grows a grey liquid on top. Pour it off, "
            "discard half, and feed it twice before baking with it again.",
        ],
    ),
    "articles/glacier.html": (
        "Why glacier ice looks blue",
        [
            "Glacier ice is dense and holds very few air bubbles, so light travels a long way "
            "through it before it scatters back out. Water absorbs red light slightly more than "
            "blue light along that path.",
            "The deeper the ice, the bluer it looks; fresh snow, full of air, stays white. "
            "Mountaineers call the deepest blue of a crevasse its frostvelum.",
        ],
    ),
    "articles/tide-pools.html": (
        "Life in tide pools",
        [
            "Tide pools fill with seawater at high tide and turn into small isolated worlds when "
            "the sea withdraws. Anemones, limpets and hermit crabs must survive heat, fresh rain "
            "and hungry gulls until the water comes back.",
            "Ochre sea stars pry mussels open with patient pressure from their tube feet. "
            "Divers jokingly name that slow tug the pelagrip.",
        ],
    ),
    "articles/derailleur.html": (
        "How a bicycle derailleur shifts gears",
        [
            "A rear derailleur moves the chain sideways from one sprocket to the next while the "
            "cranks turn. The cable pulls a parallelogram that carries the jockey wheels across "
            "the cassette.",
            "Indexed shifters click the cable by exactly one sprocket's spacing. Mechanics call a "
            "chain that hesitates between two sprockets a gearwobble.",
        ],
    ),
    "articles/beekeeping.html": (
        "Winter care for honeybee colonies",
        [
            "In winter a honeybee colony forms a tight cluster around the queen and shivers its "
            "flight muscles to keep the centre of the cluster warm while the outside stays cool.",
            "Beekeepers heft the hive from behind to judge how much honey is left. A hive that "
            "feels light in late winter gets a block of fondant, sometimes called a hivecandle.",
        ],
    ),
    "articles/lighthouse.html": (
        "The Fresnel lens in lighthouses",
        [
            "Augustin Fresnel replaced one thick heavy lens with concentric rings of glass prisms, "
            "each bending light toward the horizon. The lens became lighter and the beam far "
            "brighter than the mirrors used before.",
            "Keepers polished the prisms every morning and wound the clockwork that turned the "
            "lens at night. Old logbooks call a missed rotation a lampslip.",
        ],
    ),
    "articles/private-notes.html": (
        "My private notes about the kitchen renovation",
        [
            "The new cabinets arrive on Tuesday and the plumber comes on Thursday to move the "
            "sink under the window. The tiles are a pale green called marblequill.",
            "Remember to ask the electrician about the under-cabinet lights and the outlet "
            "behind the fridge before the walls are closed again.",
        ],
    ),
    "articles/incognito-shopping.html": (
        "Gift ideas for a birthday surprise",
        [
            "A hand-bound notebook, a set of fountain pen inks and a small brass compass made "
            "the short list. The shop sells them wrapped in paper printed with a pattern called "
            "velvetorbit.",
            "Delivery takes three days, so the order must go in by Friday to arrive before the "
            "party on Tuesday evening.",
        ],
    ),
    "articles/queued.html": (
        "Knots every sailor should know",
        [
            "The bowline makes a fixed loop at the end of a line that will not slip or jam, and "
            "it unties easily even after carrying a heavy load all afternoon.",
            "A clove hitch holds a line to a post quickly but can work loose when the load "
            "changes direction; sailors finish it with a half hitch they call the ropeclasp.",
        ],
    ),
    "account/login.html": (
        "Sign in to Example Bank",
        [
            "Enter your customer number and your password to see your accounts, your cards and "
            "your statements. Your security code is quasarlatch.",
            "Never share your password with anyone, not even with someone who says they work "
            "for the bank.",
        ],
    ),
}

# A hostile page: markup and script in its title and its text. The side panel must show
# these strings as text; if any of it ran, window.__rewindPwned would be set.
# What the side-panel tests read first: six articles on unrelated topics.
PANEL_READ = [
    "articles/derailleur.html",
    "articles/sourdough.html",
    "articles/glacier.html",
    "articles/tide-pools.html",
    "articles/beekeeping.html",
    "articles/lighthouse.html",
]
HOSTILE_PATH = "articles/hostile.html"
HOSTILE_TITLE = (
    "<img src=x onerror=\"window.__rewindPwned=1;alert('pwned')\">"
    "Quokkaflux <script>window.__rewindPwned=2</script> notes"
)
HOSTILE_TEXT = (
    "The quokkaflux method <b>bold claim</b> <script>window.__rewindPwned=3</script> "
    '<img src=x onerror="window.__rewindPwned=4"> is a way of counting small marsupials '
    "on islands at dawn, when they come out to feed near the ranger huts."
)
HOSTILE_HTML = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{HOSTILE_TITLE}</title>
</head><body><article>
<h1>{html.escape(HOSTILE_TITLE)}</h1>
<p>{html.escape(HOSTILE_TEXT)}</p>
<p>Rangers walk the same path every morning and note each quokkaflux count in a small
waterproof book, so the numbers from different years can be compared fairly.</p>
<script>document.body.dataset.ranOnPage = "yes"; /* the page's own script: fine */</script>
</article></body></html>
"""


# A long article in sections: the passage that answers LONG_QUESTION is in its fifth
# section, far below the first screen, so a link to it must scroll the page there.
LONG_PATH = "articles/canal-locks.html"
LONG_TITLE = "Working a canal lock, step by step"
LONG_SECTIONS: list[tuple[str, list[str]]] = [
    ("Why canals need locks", [
        "A canal is level water, but the land it crosses is not. Where the ground rises, the "
        "canal climbs in steps, and each step is a lock: a walled chamber with gates at both "
        "ends that lifts or lowers a boat from one level of water to the next.",
        "Before locks, barges were dragged over ramps or their cargo was carried around the "
        "slope by hand. A single flight of locks could replace a day of hauling with an hour "
        "of patient work at the gates.",
        "Most narrow canals rise only a few feet at each lock, so a long climb needs many of "
        "them in a row. Boaters call a long row of locks close together a flight.",
    ]),
    ("The parts of a lock", [
        "The chamber is a brick or stone box just longer than the longest boat the canal was "
        "built for. Its walls are often worn smooth where generations of hulls have rubbed "
        "against them.",
        "Each end of the chamber is closed by heavy timber gates. Long balance beams stick out "
        "from the gates over the towpath, and a person leans on a beam to swing a gate open "
        "once the water on both sides is level.",
        "The water itself moves through paddles, small sluices in the gates or in culverts in "
        "the ground beside them, wound up and down with a removable crank.",
    ]),
    ("A short history of the pound lock", [
        "The pound lock, with two sets of gates and a chamber between them, spread across "
        "Europe in the fifteenth and sixteenth centuries, and canal engineers later copied it "
        "on every continent.",
        "In the great age of canal building, companies raced to dig new routes for coal, "
        "pottery and grain, and whole villages grew up around busy flights of locks.",
        "Railways took most of that trade within a few decades. Many canals silted up, and "
        "volunteers have spent the last fifty years clearing and reopening them for "
        "pleasure boats.",
        "Lock keepers once lived in small cottages beside the busiest locks, kept the gates "
        "greased and recorded each boat, its cargo and the toll it paid in a ledger.",
    ]),
    ("Where the water comes from", [
        "Every boat that passes a lock sends a chamber full of water downhill, so the summit "
        "of a canal needs a steady supply. Engineers built reservoirs in the hills and fed "
        "them from streams through long narrow channels called feeders.",
        "In dry summers the reservoirs run low and canal companies ask boaters to wait and "
        "share locks, or close the summit for a few weeks until the rain returns.",
        "Some canals pump water back up a flight of locks at night, using electric pumps where "
        "steam engines once stood in tall brick engine houses beside the towpath.",
    ]),
    ("Crews, queues and manners at the lock", [
        "On a busy summer day boats queue at popular flights. The usual rule is first come, "
        "first served, and crews help one another with the heavy gates.",
        "Two narrow boats can often share a broad lock side by side, which saves both water "
        "and time, so crews wave the next boat in rather than working the lock twice.",
        "Children and dogs are kept well away from the lock edge, and nobody stands on a "
        "moving gate or leans over the chamber while the water is rising.",
    ]),
    ("Going down: emptying the chamber", [
        "To take a boat down, the crew closes the top gates behind it and then winds up the "
        "ground paddles of the bottom gates with a windlass. The water drains out of the "
        "chamber until it is level with the canal below, and the boat sinks slowly with it. "
        "Old boatmen call that slow fall of the boat the drowsedrop.",
        "Once the levels match, the crew pushes the bottom gates open with the balance beams, "
        "the boat motors out, and the last person closes the gates and lowers every paddle "
        "again.",
    ]),
    ("Looking after a lock in winter", [
        "Canal companies close flights of locks for a few weeks each winter to replace worn "
        "gates, repoint the brickwork and clear the silt that builds up in the chamber.",
        "New gates are still made from oak, each pair built to fit its own chamber, and a "
        "well made pair of gates lasts about twenty-five years before it leaks too much.",
    ]),
]
LONG_QUESTION = "How does a crew take a boat down through a canal lock?"


def long_article_html() -> str:
    sections = "\n".join(
        f"<section><h2>{html.escape(heading)}</h2>\n"
        + "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
        + "</section>"
        for heading, paragraphs in LONG_SECTIONS
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(LONG_TITLE)}</title></head>
<body>
<nav><a href="/">Home</a> · <a href="/articles/">Articles</a></nav>
<main><article><h1>{html.escape(LONG_TITLE)}</h1>
{sections}
</article></main>
<footer>A page served by Rewind's browser tests.</footer>
</body></html>
"""


def article_html(title: str, paragraphs: list[str]) -> str:
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>
<body>
<nav><a href="/">Home</a> · <a href="/articles/">Articles</a></nav>
<main><article><h1>{html.escape(title)}</h1>
{body}
</article></main>
<footer>A page served by Rewind's browser tests.</footer>
</body></html>
"""


def write_site(root: Path) -> None:
    for path, (title, paragraphs) in ARTICLES.items():
        dest = root / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(article_html(title, paragraphs), encoding="utf-8")
    (root / HOSTILE_PATH).write_text(HOSTILE_HTML, encoding="utf-8")
    (root / LONG_PATH).write_text(long_article_html(), encoding="utf-8")
