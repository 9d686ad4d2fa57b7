"""The lexicon matcher (rewind.capture.content_lexicon): entries of every language found on
word boundaries, prefixes, Chinese and Japanese without spaces, the longest of overlapping
entries, greetings of a person, and languages left out."""

import pytest
from rewind.capture.content_lexicon import Lexicon, clean, lexicon

LEX = lexicon()


def found(text: str, lex: Lexicon = LEX) -> list[tuple[str, str]]:
    c = clean(text)
    return [(h.key, c[h.start:h.end].strip()) for h in lex.scan(c)]


@pytest.mark.parametrize(("text", "key"), [
    ("Sign out", "signout"), ("Abmelden", "signout"), ("Se déconnecter", "signout"),
    ("Cerrar sesión", "signout"), ("Esci", "signout"), ("Uitloggen", "signout"),
    ("Terminar sessão", "signout"), ("Выйти", "signout"), ("ログアウト", "signout"),
    ("退出登录", "signout"),
    ("Mein Konto", "account"), ("Mon compte", "account"), ("Mi cuenta", "account"),
    ("Il mio account", "account"), ("Mijn gegevens", "account"), ("Minha conta", "account"),
    ("Личный кабинет", "account"), ("マイページ", "account"), ("个人中心", "account"),
    ("Log in", "signin"), ("Anmelden", "signin"), ("Se connecter", "signin"),
    ("Iniciar sesión", "signin"), ("Accedi", "signin"), ("Inloggen", "signin"),
    ("Entrar", "signin"), ("Войти", "signin"), ("ログイン", "signin"), ("登录", "signin"),
])
def test_controls_in_every_language(text, key):
    assert (key, clean(text).strip()) in found(text)


def test_words_are_matched_whole_not_inside_other_words():
    assert ("cat:mail", "inbox") in found("Three new mails in the inbox")
    assert not any(w == "inbox" for _, w in found("An inboxing service"))
    assert not any(k == "signout" for k, _ in found("The exit was blocked"))


def test_a_trailing_star_matches_any_ending_of_the_word():
    got = found("Zwei-Faktoren-Schutz aktiviert; drei Überweisungen offen")
    assert ("cat:account", "zwei faktoren") in got  # "zwei-faktor*"
    assert ("cat:finance", "überweisungen") in got  # "überweisung*"
    assert ("cat:mail", "непрочитанные") in found("Непрочитанные письма")


def test_cjk_entries_match_inside_runs_and_the_longest_wins():
    assert found("退出登录") == [("signout", "退出登录")]  # not also a sign-in (登录)
    assert ("cat:payroll", "給与明細") in found("2025年10月分 給与明細")
    assert ("cat:tax", "e tax") in found("e-Taxで提出する準備ができました")


def test_one_hit_per_span_even_when_several_languages_list_it():
    assert found("Hallo") == [("greeting", "hallo")]  # German and Dutch both list it


@pytest.mark.parametrize(("line", "greets"), [
    ("Hallo, Anna", True), ("Bonjour Claire", True), ("Hola, Lucía García López", True),
    ("Здравствуйте, Мария Петровна", True), ("田中 美咲 さん、こんにちは", True),
    ("Welcome back, Dan", True),
    ("Hello, World!", False), ("Welcome to the documentation", False),
    ("Hello 2024", False), ("欢迎使用本系统", False),
    ("Hello, this line goes on for far too many words to be a greeting", False),
])
def test_greetings_of_a_person(line, greets):
    c = clean(line)
    assert LEX.greets(c, LEX.scan(c)) is greets


def test_a_language_left_out_matches_nothing_of_its_own():
    without = lexicon(frozenset({"de"}))
    assert "de" not in without.langs and "de" in LEX.langs
    assert not any(k == "signout" for k, _ in found("Abmelden", without))
    assert ("signout", "log out") in found("Log out", without)


def test_bad_entries_are_refused_by_name():
    with pytest.raises(ValueError, match="empty"):
        Lexicon({"ui": {"en": ["..."]}}, {})
