"""Whether a passage holds a sentence word for word (answers/grounding.py): plain string
work, no model — the rules the citation checker stands on."""

from __future__ import annotations

from rewind.answers.grounding import PassageWords, claim_words, ground, negated, particulars

WINDOWS = ("On Windows, the standard Python installer already associates the .py extension "
           "with a file type (Python.File) and gives that file type an open command that "
           "runs the interpreter. This is enough to make scripts executable from the command "
           "prompt as 'foo.py'.")
SORTING = ("Both list.sort() and sorted() have a key parameter to specify a function (or "
           "other callable) to be called on each list element prior to making comparisons. "
           "A common pattern is to sort complex objects using some of the object's indices "
           "as keys.")


def holds(sentence: str, passage: str, question: str = "", title: str = "") -> bool:
    return ground(sentence, claim_words(question), PassageWords(passage, title)).holds(1.0)


def test_a_sentence_made_of_the_passages_words_holds_inflection_allowed():
    assert holds("The installer associates .py files with Python.File.", WINDOWS)
    assert holds("Sorting complex objects uses some of their indices as keys.", SORTING)


def test_a_word_the_passage_lacks_is_not_held():
    q = "How do I make Python scripts executable?"
    g = ground("To make a Python script executable, you can use the chmod command.",
               claim_words(q), PassageWords(WINDOWS))
    assert not g.holds(1.0) and "chmod" in g.missing


def test_the_questions_own_words_need_no_source():
    q = "How do I sort a list of objects by an attribute?"
    said = "Sort the objects by attribute with a key function."
    assert holds(said, SORTING, q)
    assert not holds(said, SORTING)  # "attribute" is the question's word, not the page's


def test_numbers_code_and_identifiers_must_be_there_as_written():
    assert not holds("Python 3.12 associates the .py extension.", WINDOWS)
    assert not holds("Run `chmod +x foo.py` first.", WINDOWS)
    assert not holds("Call os.system() with the script.", WINDOWS)
    assert holds("`sorted()` has a key parameter.", SORTING)
    assert particulars("Use `os.path.join` or sys.argv, not --verbose") == [
        "os.path.join", "sys.argv", "--verbose"]


def test_a_changed_polarity_is_another_claim():
    assert negated("It does not run.") and negated("Das geht nicht.") and not negated("It runs.")
    assert not holds("The installer does not associate the .py extension.", WINDOWS)
    passage = "The GIL does not allow two threads to run Python bytecode at once."
    assert not holds("The GIL allows two threads to run Python bytecode at once.", passage)
    assert holds("The GIL does not allow two threads to run bytecode at once.", passage)


def test_the_title_counts_as_the_pages_words():
    assert holds("The Sorting HOW TO says sorted() has a key parameter.", SORTING,
                 title="Sorting HOW TO")


def test_the_backing_span_is_the_sentence_that_holds_the_claim():
    pw = PassageWords(WINDOWS)
    g = ground("This makes scripts executable from the command prompt as 'foo.py'.", set(), pw)
    start, end = g.span
    assert WINDOWS[start:end].startswith("This is enough") and WINDOWS[end - 1] == "."


def test_other_languages_are_held_to_their_own_words():
    passage = "Die Rechnung ist bis zum 15. März fällig. Eine Mahnung kostet 5 Euro."
    assert holds("Die Rechnung ist bis zum 15. März fällig.", passage)
    assert not holds("Die Rechnung ist bis zum 20. März fällig.", passage)
    assert not holds("Die Rechnung ist nicht fällig.", passage)


def test_a_line_of_code_must_be_the_sources_own():
    passage = "The functools module is for higher-order functions: functools.partial() wraps one."
    assert not holds("import functools", passage)  # the page names it, never imports it
    assert holds("import functools", "Start with import functools at the top.")
    assert not holds("x = sorted(data, key=len)", "Call sorted() with a key function.")


def test_what_a_sentence_adds_is_found_together_not_picked_from_all_over():
    passage = ("The export rules are on the legal page. sqlite> insert into tbl1 "
               "values('hello!',10); Nothing else is said here.")
    q = "What is the Export Control Classification Number (ECCN) for SQLite?"
    assert not holds("The Export Control Classification Number (ECCN) for SQLite is 10.",
                     passage, q)  # a 10 in a line of code is not the ECCN
    assert holds("The ECCN for SQLite is 5D002.", "SQLite's ECCN is 5D002, like most "
                 "open-source encryption software.", q)
    far = ("Sourdough needs flour. " + "Filler sentence here. " * 6 + "It also needs water.")
    assert not holds("Sourdough needs flour and water.", far)  # words far apart
