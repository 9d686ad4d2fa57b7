"""Write a small store with whichever Rewind is on sys.path (an old checkout's host/), for
the upgrade tests' fixtures (README.md beside this file). Run by hand, never by the tests:
it is the old code, not today's, that must write them."""
import shutil
import sys
from pathlib import Path

from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput
from rewind.config import Settings
from rewind.profile.engine import Rewind

out, docs = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
pages = ["faq/windows.html", "howto/sorting.html", "tutorial/classes.html"]
with Rewind.open(out / "data", Settings()) as eng:
    for i, rel in enumerate(pages):
        doc = html_document((docs / rel).read_text())
        r = eng.index_page(PageInput(url=f"https://docs.python.org/3/{rel}", title=doc.title,
                                     document=doc, visited_at=1_763_000_000 + i * 3600,
                                     dwell_s=60.0 + i))
        print(r.status, r.passages, r.url)
    eng.stores.writer.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # one file, nothing in a WAL
