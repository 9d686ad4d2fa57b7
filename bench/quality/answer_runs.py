"""What the answer benchmark (bench/quality/answers.py) asks and what it records of each
answer: the asks with the LLM and extractively, the follow-ups, build_context at each
budget, and the questions asked of a store without their answer.

Job: run `Answerer.ask` and `Answerer.build_context` in the benchmark's order (LLM and
extractive alternating per question, budgets rotating) and keep each result as a row
(`AskRow`, `ContextRow`, gathered in a `Run`): its timings, the sources and citations mapped
back to FAQ answers, the checked text with its citation tags removed. Never: build or open a
store (answers.py does), judge or format a figure (answer_tables.py does), or change an
answer's settings.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import data

LLM = "smollm2-135m-instruct-q8_0"  # the offline default LLM; --llm picks another spec
TOP_K = 5  # passages given to the model (settings.answer_top_k)
VISITED_DAYS_AGO = 7  # when the answers were "read" (see answers.py's main)
KINDS = ("llm", "extractive")
# Asked right after a question: the same sources lead the prompt, so llama.cpp reuses their
# cached state and only reads the new question (prompt-prefix reuse for follow-ups).
FOLLOW_UP = " Answer in one sentence."
# A question outside the FAQ, for the first (cold) ask when every FAQ question is measured.
WARM_UP_QUESTION = "How do I read a text file line by line?"


@dataclass
class AskRow:
    kind: str  # "llm" | "extractive"
    gold: str  # FaqPair.doc_id
    gold_text: str  # its answer text
    answer: str  # the checked answer, citation tags removed ("" for couldn't-find)
    raw: str  # the model's (or extractor's) text before checking, tags removed
    supported: bool
    could_not_find: bool
    left_out: int  # sentences the checker left out as unsupported
    source_docs: list[str]  # doc id of Source 1, 2, ... ("?url" when not an FAQ answer)
    cited_docs: list[str]  # doc ids cited in the checked answer, first citation first
    timings: dict[str, float | None]
    context_tokens: int
    model: str | None


@dataclass
class ContextRow:
    budget: int
    took_ms: float  # whole build_context: retrieval (query embedding included) + packing
    retrieval_ms: float
    tokens: int  # BuiltContext.total_tokens
    recount: int  # the packed text counted again, whole, with the same tokenizer
    items: int

    @property
    def over(self) -> bool:
        return max(self.tokens, self.recount) > self.budget


@dataclass
class Run:
    rows: dict[str, list[AskRow]] = field(default_factory=lambda: {k: [] for k in KINDS})
    first_ask: AskRow | None = None
    first_ask_wall_ms: float = 0.0
    context: list[ContextRow] = field(default_factory=list)
    tokenizer: str = ""
    follow_up_first_token: list[float] = field(default_factory=list)  # same sources only
    follow_ups: int = 0  # asked; those whose sources differed are not timed above
    # Questions whose answer was left out of the store: "couldn't find" is the right reply.
    held_out: dict[str, list[AskRow]] = field(default_factory=lambda: {k: [] for k in KINDS})


def _import_answer() -> Any:
    try:
        from rewind.answers import answer
    except ImportError as exc:
        raise SystemExit(f"rewind.answers is not importable ({exc}); see host/rewind") from exc
    return answer


def spread(n_items: int, n: int) -> list[int]:
    """`n` indices spread evenly over range(n_items) (all of them when n >= n_items)."""
    if n <= 0 or n >= n_items:
        return list(range(n_items))
    return sorted({(i * n_items) // n for i in range(n)})


def ask_row(res: Any, kind: str, gold: data.FaqPair | None,
            url_doc: dict[str, str]) -> AskRow:  # fmt: skip
    by_n = {s["n"]: url_doc.get(s["url"], f"?{s['url']}") for s in res.sources}
    cited: list[int] = []
    if res.supported:  # a couldn't-find answer lists the closest pages: those are no citations
        for c in res.citations:
            if c["status"] in ("ok", "corrected", "added"):
                cited += [n for n in c["sources"] if n not in cited]
    from rewind.answers.citations import CITE
    from rewind.answers.prompt import COULD_NOT_FIND

    cnf = res.answer.startswith(COULD_NOT_FIND)

    def bare(text: str) -> str:  # "It does [Source 2]." -> "It does."
        return re.sub(r"[ \t]+([.,;:!?])", r"\1", CITE.sub("", text))

    return AskRow(
        kind=kind,
        gold=gold.doc_id if gold else "",
        gold_text=gold.answer_text if gold else "",
        answer="" if cnf else bare(res.answer),
        raw=bare(res.raw_answer),
        supported=res.supported,
        could_not_find=cnf,
        left_out=len(res.unsupported),
        source_docs=[by_n[n] for n in sorted(by_n)],
        cited_docs=[by_n.get(n, f"?{n}") for n in cited],
        timings=dict(res.timings),
        context_tokens=res.context_tokens,
        model=res.model,
    )


def run_asks(answerer: Any, questions: Sequence[data.FaqPair], warm_up: str,
             url_doc: dict[str, str], out: Run,
             progress: Callable[[str], None]) -> None:  # fmt: skip
    """The cold first ask, then every question with the LLM and extractively, alternating."""
    t0 = time.perf_counter()
    first = answerer.ask(warm_up)
    out.first_ask_wall_ms = (time.perf_counter() - t0) * 1000
    if first.model is None:
        problem = answerer.llm_problem
        raise SystemExit(f"no language model answered: {problem.message if problem else '?'}"
                         f" {problem.hint if problem else ''}")  # fmt: skip
    out.first_ask = ask_row(first, "llm", None, url_doc)
    for i, p in enumerate(questions):
        order = KINDS if i % 2 == 0 else KINDS[::-1]
        for kind in order:
            res = answerer.ask(p.question, extractive=kind == "extractive")
            out.rows[kind].append(ask_row(res, kind, p, url_doc))
            if kind == "llm":
                res_llm = res
        follow = answerer.ask(p.question + FOLLOW_UP)  # after both: the LLM's cache holds p
        out.follow_ups += 1
        same = [s["url"] for s in follow.sources] == [s["url"] for s in res_llm.sources]
        # no first token when the follow-up was answered "couldn't find" without the model
        if same and follow.timings.get("first_token_ms") is not None:
            out.follow_up_first_token.append(follow.timings["first_token_ms"])
        llm_row = out.rows["llm"][-1]
        progress(f"  ask {i + 1}/{len(questions)}: total {llm_row.timings['total_ms']} ms, "
                 f"{'supported' if llm_row.supported else 'not supported'}")  # fmt: skip


def run_contexts(answerer: Any, questions: Sequence[data.FaqPair], budgets: Sequence[int],
                 out: Run) -> None:  # fmt: skip
    """build_context for every question at every budget, budgets in a rotating order."""
    tok = answerer.tokenizer()
    out.tokenizer = tok.name
    if "no language model" in tok.name or "approximate" in tok.name:
        raise SystemExit(f"build_context would count with {tok.name!r}, not the LLM's tokenizer")
    answerer.build_context("warm up", None, budgets[0])  # first-call costs (index reload)
    for i, p in enumerate(questions):
        r = i % len(budgets)
        for b in [*budgets[r:], *budgets[:r]]:
            t0 = time.perf_counter()
            built = answerer.build_context(p.question, None, b)
            took = (time.perf_counter() - t0) * 1000
            out.context.append(ContextRow(b, took, built.retrieval_ms, built.total_tokens,
                                          tok.count(built.text), len(built.items)))  # fmt: skip


def run_held_out(answerer: Any, questions: Sequence[data.FaqPair], url_doc: dict[str, str],
                 out: Run) -> None:  # fmt: skip
    """Each question with the LLM and extractively, over a store that lacks its answer."""
    for i, p in enumerate(questions):
        for kind in KINDS if i % 2 == 0 else KINDS[::-1]:
            res = answerer.ask(p.question, extractive=kind == "extractive")
            out.held_out[kind].append(ask_row(res, kind, p, url_doc))

