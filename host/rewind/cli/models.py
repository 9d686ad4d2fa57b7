"""`rewind models`: what is installed, pulling a model (from where it is published, or a
mirror), and which answering model suits this machine.

This module must never download anything the person did not ask for.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import urllib.parse

from .. import config
from ..errors import Code, RewindError
from ..models import installed, specs
from ..profile import settings as profile_settings
from .common import Command, emit


def cmd_models(args: argparse.Namespace) -> int:
    if args.action == "pull":
        return cmd_models_pull(args)
    if args.action == "recommend":
        return cmd_models_recommend(args)
    if args.action == "use":
        from .reembed import cmd_models_use

        return cmd_models_use(args)
    if args.name:
        raise RewindError(Code.BAD_REQUEST, f"`rewind models list` takes no name ({args.name}).",
                          "Use `rewind models pull NAME` to download one.")
    rows = installed.describe(config.model_dir(), verify=args.verify)
    lines = []
    for r in rows:
        lines.append(f"{'installed' if r['installed'] else 'missing  '}  {r['kind']:9} "
                     f"{r['name']:28} {r['description']}")
        if r["kind"] == "embedding" and r["dims"] and len(r["dims"]) > 1:
            lines.append(f"{'':22}dimensions: {', '.join(map(str, r['dims']))} "
                         "(`rewind models use NAME --dim D`)")
        if r["kind"] == "llm" and r.get("licence"):
            lic = r["licence"]
            mem = r["memory_bytes"]
            lines.append(
                f"{'':22}{r['parameters_b']:g}B parameters, {r['quantisation']}, "
                f"{_gb(r['file_bytes'])} download, ~{_gib(mem)} memory, "
                f"{r['n_ctx']:,}-token context; licence: {lic['name']}"
                + (f" ({lic['use']})" if lic["use"] else ""))
        if not r["sha256_published"]:
            lines.append(f"{'':22}no published sha256: the first download is trusted and its "
                         "sha256 recorded; later checks compare with that")
    emit(args, rows, "\n".join(lines) + f"\n(model directory: {config.model_dir()}; "
         "`rewind models recommend` says which language model suits this machine)")
    return 0


def cmd_models_pull(args: argparse.Namespace) -> int:
    from ..models import download, sources

    if not args.name:
        raise RewindError(Code.BAD_REQUEST, "Which model? `rewind models pull NAME`.",
                          "`rewind models` lists the names.")
    spec = specs.load_specs().get(args.name)
    mirror = sources.mirror_setting(args.mirror)
    note = sources.source_note(mirror)
    if note:
        print(f"note: {note}", file=sys.stderr)
    pulled = download.pull(spec, config.model_dir(), mirror, progress=download.Bar())
    rows = [{"file": p.name, "path": str(p.path), "bytes": p.bytes, "sha256": p.sha256 or None,
             "checked_against_known_sha256": p.verified, "checked_against": p.against or None,
             "already_installed": p.skipped}
            for p in pulled]
    human = "\n".join(
        f"{'kept     ' if p.skipped else 'installed'}  {p.path}  ({p.bytes / 1e6:,.1f} MB"
        + ("" if p.skipped or p.verified else f", sha256 {p.sha256} recorded: models.json has "
           "none to check it against")
        + (", sha256 as first downloaded" if p.against == "first download" else "")
        + ")" for p in pulled)
    emit(args, {"model": spec.name, "files": rows}, human)
    return 0


def cmd_models_recommend(args: argparse.Namespace) -> int:
    from ..models import recommend

    if args.name:
        raise RewindError(Code.BAD_REQUEST, f"`rewind models recommend` takes no name "
                          f"({args.name}).", "Give --memory GB or --cores N to ask about "
                          "another machine.")
    here = recommend.this_machine()
    if args.memory is not None and not 0.25 <= args.memory <= 4096:
        raise RewindError(Code.BAD_REQUEST, f"--memory {args.memory:g} is not a memory size.",
                          "Give the machine's memory in GiB, e.g. --memory 8.")
    if args.cores is not None and not 1 <= args.cores <= 1024:
        raise RewindError(Code.BAD_REQUEST, f"--cores {args.cores} is not a number of cores.",
                          "Give a whole number of cores, e.g. --cores 4.")
    # The person's saved settings: the answering model they chose (the options page).
    settings = profile_settings.apply(config.Settings(), config.data_dir(override=args.data_dir))
    if args.patience is not None:
        try:
            wait = config.check_value("recommend_max_wait_s", args.patience)
        except ValueError as exc:
            raise RewindError(Code.BAD_REQUEST, f"--patience {args.patience:g}: {exc}.",
                              "Give the seconds you would wait for an answer's first words, "
                              "e.g. --patience 20.") from None
        settings = dataclasses.replace(settings, recommend_max_wait_s=wait)
    asked = args.memory is not None or args.cores is not None
    machine = recommend.Machine(
        int(args.memory * recommend.GIB) if args.memory is not None else here.memory_bytes,
        None if asked else here.available_bytes,
        args.cores if args.cores is not None else here.cores)
    r = recommend.recommend(machine, settings, config.model_dir())
    emit(args, r.to_dict(), _recommendation_text(r, asked))
    return 0


def _recommendation_text(r, asked: bool) -> str:
    m, c = r.machine, r.choice
    free = "" if m.available_bytes is None else f" ({_gib(m.available_bytes)} free now)"
    lines = [
        f"{'That' if asked else 'This'} machine: {_gib(m.memory_bytes)} of memory{free}, "
        f"{m.cores} core{'s' if m.cores != 1 else ''}; an answering model may take "
        f"{_gib(r.allowed_bytes)}.",
        "",
        f"Recommended: {c.spec.name} — {c.spec.description}",
        f"  why: {r.reason}.",
        f"  speed: {_speed(c)}.",
        f"  answers: {c.budget:,} tokens of sources and up to {c.length:,} tokens of answer "
        f"({c.spec.n_ctx:,}-token context).",
    ]
    if c.spec.licence:
        lines.append(f"  licence: {c.spec.licence.name} ({c.spec.licence.terms})"
                     + (f", {c.spec.licence.use}" if c.spec.licence.use else ""))
    now = r.current
    if now is not None and now.spec.name == c.spec.name:
        lines.append("  answers use it already.")
    else:
        was = f"{now.spec.name}, which answers now" if now else "answers from your pages' own " \
            "sentences (no language model is installed)"
        lines.append(f"  against {was}:")
        lines += [f"    gains: {g}" for g in r.gains] + [f"    costs: {c_}" for c_ in r.costs]
    if c.installed and (now is None or now.spec.name != c.spec.name):
        lines.append(f"  installed already: `rewind ask --model {c.spec.name}` uses it "
                     "(or choose it on the options page)")
    elif not c.installed and any(f.url for f in c.spec.files):
        hosts = sorted({urllib.parse.urlsplit(f.url).netloc for f in c.spec.files if f.url})
        lines.append(f"  get it: rewind models pull {c.spec.name} (from {', '.join(hosts)}, "
                     "where it is published; --mirror URL for another place)")
    lines += ["", f"{'model':30} {'params':>6} {'download':>9} {'memory':>9} "
              f"{'first words':>11}  speed"]
    for e in r.options:
        mark = "*" if e is c else " "
        first = "?" if e.first_words_s is None else f"~{e.first_words_s:.0f} s"
        flags = [("needs more memory", not e.fits), ("installed", e.installed),
                 ("non-commercial licence", bool(e.spec.licence and not e.spec.licence.commercial))]
        lines.append(f"{mark}{e.spec.name:29} {e.spec.parameters_b:>5g}B "
                     f"{_gb(e.spec.file_bytes):>9} {_gib(e.memory_bytes):>9} {first:>11}  "
                     f"{e.speed}" + "".join(f" ({what})" for what, on in flags if on))
    lines += [""] + [f"note: {n}" for n in r.notes]
    return "\n".join(lines)


def _speed(e) -> str:
    if e.first_words_s is None:
        return "speed unknown"
    how = {"model": "measured", "stand-in": "measured on a stand-in of its shape"}.get(
        e.measured, e.measured)
    return (f"first words after ~{e.first_words_s:.0f} s, then ~{e.tokens_per_s:.0f} tokens/s "
            f"({e.speed}; {how}, estimated for this machine)")


def _gb(n: int | None) -> str:
    return "?" if n is None else f"{n / 1e9:.2f} GB"


def _gib(n: int | None) -> str:
    return "?" if n is None else f"{n / 2**30:.1f} GiB"


def register(command: Command) -> None:
    sp = command("models", cmd_models, "list models (`models pull NAME` downloads one, "
                 "`models recommend` says which suits this machine, `models use NAME` "
                 "switches the embedding model)")
    sp.add_argument("action", nargs="?", choices=("list", "pull", "recommend", "use"),
                    default="list")
    sp.add_argument("name", nargs="?", help="the model to pull, or to use (`use`: re-embeds "
                    "everything with it; search keeps working meanwhile)")
    sp.add_argument("--dim", type=int, help="use: a Matryoshka dimension the model allows")
    sp.add_argument("--verify", action="store_true", help="check every file's sha256")
    sp.add_argument("--mirror", help="pull: download from this mirror instead of where the "
                    "model is published (or $REWIND_MODEL_MIRROR); a URL template with {repo} "
                    "and {path}, see docs/answers.md")
    sp.add_argument("--memory", type=float, metavar="GB",
                    help="recommend: for a machine with this much memory (GiB)")
    sp.add_argument("--cores", type=int, help="recommend: for a machine with this many cores")
    sp.add_argument("--patience", type=float, metavar="S",
                    help="recommend: the seconds you would wait for an answer's first words "
                    f"(default {config.Settings().recommend_max_wait_s:g}): more allows a "
                    "larger, slower model")
