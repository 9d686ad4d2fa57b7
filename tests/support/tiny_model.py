"""A tiny model for `rewind models pull`'s tests (tests/models/): the bytes of its two files,
where a ModelHost (support.model_server) serves them, and the URL template that reaches
them, laid out like the model host's."""

from __future__ import annotations

import random

from rewind.models import download

from support.model_server import ModelHost

CONTENT = random.Random(7).randbytes(2 * download.CHUNK + 123_457)  # three read chunks
SMALL = random.Random(8).randbytes(5_000)
FILES = {
    "/org/tiny/resolve/main/weights.bin": CONTENT,
    "/org/tiny/resolve/main/conf/small.json": SMALL,
}


def template(m: ModelHost) -> str:
    return m.url + "/{repo}/resolve/main/{path}"
