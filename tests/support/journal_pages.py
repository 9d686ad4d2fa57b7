"""Borderline pages: a journal entry in a signed-in notes app, in three languages and at
every length (`JOURNALS`), and of each language the entry the shipped content check is least
sure of (`BORDERLINE`). Part of support.private_pages (see its docstring).
"""

from __future__ import annotations

from support.private_screens import Screen

# Borderline: a journal entry in a signed-in notes app that greets its writer, with nothing
# in it that marks a category's private record (no figures, no clock time): the greeting and
# the sign-out say "private", the ordinary prose says "not". The check is unsure somewhere
# from some length on (shorter entries are refused); `JOURNALS` has each language's entry at
# every length, `BORDERLINE` the one of each language the shipped check is least sure of
# (tests/capture/test_sensitive.py checks that the refusals come first, then the holds).
_JOURNAL = {
    "en": ("https://notes.fernhill-home.net/journal/2025-11-04", "Fernhill Notes",
           ("Today", "Journal", "Tags", "Account", "Sign out"), "## Hello, Priya",
           "Tuesday 4 November", "Tags: family, moving",
           ("Long day. Talked to Mum on the phone about moving closer; I think she is lonelier "
            "than she says.",
            "I keep putting off the visit because of work, and I feel bad about it every time "
            "we talk.",
            "We talked about the garden, the neighbours and the long winter ahead, and whether "
            "the old car is worth keeping another year.",
            "Afterwards I sat on the balcony for a while and read a few pages of the novel my "
            "sister lent me.",
            "Tomorrow is busy again, but I want to call her back before the weekend.",
            "In the evening I finally repotted the basil and cleaned the kitchen window.",
            "The neighbours' cat came by again and sat on the wall for an hour.",
            "Dinner was leftover soup, and I went to bed early with the radio on.",
            "The last asters are still out in the garden although it freezes at night.",
            "Next week I must remember to bring the geraniums inside.",
            "The library book is due on Friday and I have not even started the second half.",
            "It rained all afternoon, so the walk along the river will have to wait.",
            "I should write to Aunt Ruth, it has been months since her last letter.",
            "The bakery on the corner has a new rye bread that is worth the queue.")),
    "de": ("https://notizen.haus-kessler.de/eintraege/2025-11-05", "Kessler Notizen",
           ("Heute", "Einträge", "Schlagworte", "Konto", "Abmelden"), "## Hallo, Jonas",
           "Mittwoch, 5. November", "Schlagworte: Familie, Haus",
           ("Mit Papa telefoniert, er will das Haus am See verkaufen und in die Stadt ziehen.",
            "Ich weiß nicht, ob das eine gute Idee ist, aber ich habe es ihm nicht gesagt.",
            "Wir haben über den Garten, die Nachbarn und den langen Winter gesprochen, und ob "
            "sich das alte Auto noch ein Jahr lohnt.",
            "Danach saß ich noch eine Weile auf dem Balkon und habe ein paar Seiten in dem "
            "Roman gelesen, den mir meine Schwester geliehen hat.",
            "Morgen wird wieder voll, aber ich will ihn vor dem Wochenende noch einmal anrufen.",
            "Abends habe ich endlich das Basilikum umgetopft und das Küchenfenster geputzt.",
            "Die Katze der Nachbarn kam wieder vorbei und saß eine Stunde auf der Mauer.",
            "Zum Abendessen gab es die Suppe von gestern, und ich bin früh ins Bett gegangen.",
            "Im Garten blühen noch die letzten Astern, obwohl es nachts schon friert.",
            "Nächste Woche muss ich daran denken, die Geranien hereinzuholen.",
            "Das Buch aus der Bücherei ist am Freitag fällig, und die zweite Hälfte fehlt noch.",
            "Es hat den ganzen Nachmittag geregnet, der Spaziergang am Fluss muss warten.",
            "Ich sollte Tante Ruth schreiben, ihr letzter Brief ist Monate her.",
            "Der Bäcker an der Ecke hat ein neues Roggenbrot, für das sich das Anstehen lohnt.")),
    "fr": ("https://carnet.famille-morel.fr/notes/2025-11-06", "Carnet Morel",
           ("Aujourd'hui", "Notes", "Étiquettes", "Compte", "Se déconnecter"),
           "## Bonjour, Claire", "Jeudi 6 novembre", "Étiquettes : famille, maison",
           ("Appel avec Maman ce soir, elle veut vendre l'appartement de Nice cet hiver.",
            "Je ne sais pas quoi en penser et je n'ai encore rien dit à mon frère.",
            "Nous avons parlé du jardin, des voisins et du long hiver qui arrive, et de la "
            "vieille voiture qu'il faudra peut-être vendre.",
            "Ensuite je suis restée un moment sur le balcon à lire quelques pages du roman que "
            "ma sœur m'a prêté.",
            "Demain sera encore chargé, mais je veux la rappeler avant le week-end.",
            "Le soir, le basilic a enfin été rempoté et la fenêtre de la cuisine lavée.",
            "Le chat des voisins est repassé et s'est assis une heure sur le muret.",
            "Au dîner, la soupe de la veille, puis couchée tôt avec la radio.",
            "Dans le jardin, les derniers asters fleurissent encore malgré le gel de la nuit.",
            "La semaine prochaine, il faudra penser à rentrer les pots de géraniums.",
            "Le livre de la bibliothèque est à rendre vendredi et la seconde moitié reste à lire.",
            "Il a plu tout l'après-midi, la promenade au bord de la rivière attendra.",
            "Il faudrait écrire à tante Ruth, sa dernière lettre date de plusieurs mois.",
            "La boulangerie du coin a un nouveau pain de seigle qui vaut bien la file d'attente.")),
}
_MARK = {"en": "journfern", "de": "tagebkes", "fr": "carnetmor"}


def _journal(lang: str, sentences: int) -> Screen:
    """`lang`'s journal entry with its first `sentences` sentences (2 or more). Its mark is
    one of its tags: a long entry's extracted text keeps the list and may drop a paragraph
    after it."""
    url, app, nav, greeting, day, tags, prose = _JOURNAL[lang]
    mark = f"{_MARK[lang]}{chr(ord('a') + sentences)}q"
    return Screen("private", lang, f"{url}-{sentences}", f"{day} – {app}", mark, nav,
                  (greeting, day, *prose[:sentences], f"{tags}, {mark}"))


JOURNALS: dict[str, list[Screen]] = {
    lang: [_journal(lang, n) for n in range(2, len(v[-1]) + 1)] for lang, v in _JOURNAL.items()}


def _least_sure() -> list[Screen]:
    """Each language's journal entry the shipped check holds, nearest the middle of its
    hold band (in log-odds), so that a small refit does not move it out."""
    import math

    from rewind.capture import sensitive
    from rewind.capture.page_signals import PageSignals
    from rewind.capture.redact import redact

    check = sensitive.ContentCheck()

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    middle = (logit(check.model.hold) + logit(check.model.refuse)) / 2
    out = []
    for entries in JOURNALS.values():
        held = []
        for s in entries:
            title, passages = s.text()
            j = check.judge(redact(title).text, [redact(p).text for p in passages],
                            PageSignals.from_dict(s.signals()))
            if j.action == "hold":
                held.append((abs(logit(j.probability) - middle), s))
        if held:
            out.append(min(held, key=lambda h: h[0])[1])
    return out


BORDERLINE: list[Screen] = _least_sure()
