"""A person's records in plain article layout — a heading and paragraphs, no menu, no sign-out,
no form or table — on hostnames no rule list holds, in English, German and French (health,
bank, payroll, messaging); and articles on the same topics in the same layout. Such records
were recorded by the content check before it read a page's particulars in prose. For
tests/capture/test_records.py (the host's check) and tests/browser/test_capture_records.py.

Written for these tests, never fitted on (the check is fitted on tests/data/sensitive_pages/
and the tune and dev parts of tests/data/record_pages/). Each page has a made-up word (`mark`)
found nowhere else, so a test can ask whether any of it was stored.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Plain:
    """A page as a plain site draws it: a heading, then paragraphs."""

    category: str  # the policy category it is about
    lang: str
    url: str
    title: str
    mark: str
    paras: tuple[str, ...]

    def signals(self) -> dict:
        """What extension/content/signals.js reads from `page()`: no controls at all."""
        return {"lang": self.lang, "app": [], "manifest": False, "controls": [], "editors": 0}

    def text(self) -> tuple[str, list[str]]:
        return self.title, ["\n".join([self.title, *self.paras, self.mark])]

    def page(self) -> Any:
        from capture_pages import Page  # tests/browser: the served page

        body = (f"<main><h1>{html.escape(self.title)}</h1>"
                + "".join(f"<p>{html.escape(p)}</p>" for p in self.paras)
                + f"<p>{self.mark}</p></main>")
        return Page(self.url, self.title, self.mark, body, lang=self.lang)


PRIVATE: list[Plain] = [
    Plain("health", "en", "https://notes.brookside-practice.net/visit/88231",
          "Visit summary – Daniel Ortiz", "visitbrookq",
          ("Patient Daniel Ortiz, born 02/17/1986, was seen on 11/03/2025 at 10:20 by "
           "Dr. Helen Marsh.",
           "You told us your low mood has lasted since the summer. We diagnosed a major "
           "depressive episode (F32.1) and started you on escitalopram 10 mg every morning.",
           "Please come back in four weeks so we can check how you are doing.")),
    Plain("finance", "en", "https://online.tidewater-savings.org/summary/5521",
          "Your accounts – Tidewater Savings", "tidesavqoz",
          ("Good evening Rachel. Your checking account ending 4471 has a balance of "
           "$3,218.44 as of November 4.",
           "On November 3 you paid $84.20 at Safeway and $129.00 to Puget Energy; your salary "
           "of $2,940.18 arrived on October 31.",
           "Your savings account ending 9012 holds $11,406.73.")),
    Plain("payroll", "en", "https://people.harbourline-freight.net/pay/2025-10",
          "Pay statement October 2025 – Mia Thornton", "paythornx",
          ("Employee Mia Thornton, employee ID 4471902, pay period ending 10/31/2025.",
           "Your gross pay was $5,120.00. Federal income tax $612.40, Social Security $317.44 "
           "and Medicare $74.24 were withheld; your 401(k) took $256.00.",
           "Net pay of $3,859.92 was deposited to your account ending 0912.")),
    Plain("chat", "en", "https://chat.kestrel-design.net/dm/jonas",
          "Jonas Weber – direct message", "dmkestrelq",
          ("Jonas Weber, 18:02: are you ok? You left the meeting in tears.",
           "Anna Kowalski, 18:09: Not really. The doctor says the lump has to come out, the "
           "operation is on the 14th.",
           "Jonas Weber, 18:11: I'm so sorry. Take the week, I'll tell Mark you are ill.",
           "Anna Kowalski, 18:12: Thank you. Please don't tell anyone else yet.")),
    Plain("health", "de", "https://portal.praxis-am-weiher.de/befund/30412",
          "Ihr Befund – Praxis am Weiher", "befweihrq",
          ("Patient: Stefan Roth, geboren am 04.09.1971, Untersuchung am 05.11.2025.",
           "Ihre Laborwerte: HbA1c 7,4 %, Nüchternglukose 151 mg/dl, LDL-Cholesterin 172 mg/dl. "
           "Diagnose: Diabetes mellitus Typ 2 (E11.9).",
           "Wir haben Ihnen Metformin 1000 mg 1-0-1 verordnet. Bitte kommen Sie in drei "
           "Monaten zur Kontrolle.")),
    Plain("finance", "de", "https://banking.raiffeisen-talgrund.de/konten/uebersicht",
          "Ihre Konten – Talgrund Bank", "kontotalgx",
          ("Guten Tag, Herr Albrecht. Kontostand Ihres Girokontos DE44 **** 4471 am "
           "04.11.2025: 2.318,44 EUR.",
           "Am 03.11. haben Sie 64,18 EUR bei REWE bezahlt und 940,00 EUR Miete überwiesen; "
           "Ihr Gehalt von 3.104,55 EUR wurde am 31.10. gutgeschrieben.",
           "Ihr Tagesgeldkonto weist ein Guthaben von 8.402,10 EUR aus.")),
    Plain("payroll", "de", "https://lohn.spedition-haller.de/abrechnung/2025-10",
          "Entgeltabrechnung Oktober 2025 – Petra Haller", "lohnhallq",
          ("Mitarbeiterin: Petra Haller, Personalnummer 20417, Steuerklasse I.",
           "Ihr Bruttogehalt betrug 4.210,00 EUR. Abgezogen wurden Lohnsteuer 612,33 EUR, "
           "Solidaritätszuschlag 0,00 EUR und Sozialversicherung 872,47 EUR.",
           "Der Auszahlungsbetrag von 2.725,20 EUR wurde am 30.10.2025 auf Ihr Konto "
           "überwiesen.")),
    Plain("chat", "de", "https://matrix.familie-engel.de/raum/familie",
          "Familie Engel – Chat", "chatengelq",
          ("Mama, 19:40: Der Arzt hat heute angerufen, die Biopsie war leider bösartig.",
           "Lukas, 19:44: Oh nein. Ich komme am Samstag vorbei, soll ich die Kinder "
           "mitbringen?",
           "Mama, 19:46: Ja, bitte. Aber sagt Oma noch nichts, ich möchte es ihr selbst sagen.")),
    Plain("health", "fr", "https://compte-rendu.cabinet-des-tilleuls.fr/consultation/7781",
          "Compte rendu de consultation – Mme Laurence Vidal", "crtilleuq",
          ("Patiente : Laurence Vidal, née le 12/06/1968, vue le 04/11/2025 à 9 h 30.",
           "Vous nous avez parlé de crises d'angoisse répétées. Diagnostic : trouble "
           "anxieux généralisé (F41.1).",
           "Ordonnance : sertraline 50 mg, un comprimé le matin ; prochain rendez-vous "
           "dans un mois.")),
    Plain("finance", "fr", "https://clients.banque-du-bocage.fr/comptes/synthese",
          "Vos comptes – Banque du Bocage", "bocagebqx",
          ("Bonjour Madame Girard. Solde de votre compte courant au 04/11/2025 : 1 842,37 €.",
           "Le 03/11, vous avez payé 58,40 € chez Carrefour et 71,00 € à EDF ; votre salaire "
           "de 2 410,65 € a été crédité le 31/10.",
           "Votre livret A affiche 6 120,00 €.")),
    Plain("payroll", "fr", "https://paie.transports-morvan.fr/bulletins/2025-10",
          "Bulletin de paie octobre 2025 – Julien Morvan", "paiemorvq",
          ("Salarié : Julien Morvan, matricule 30218, emploi : conducteur.",
           "Votre salaire brut est de 2 680,00 € ; cotisations salariales 583,12 € ; "
           "prélèvement à la source 98,45 €.",
           "Net payé le 31/10/2025 : 1 998,43 € sur votre compte.")),
    Plain("chat", "fr", "https://discussion.atelier-lumen.fr/messages/claire",
          "Claire Dubois – message privé", "lumenmsgq",
          ("Claire Dubois, 17:55 : Tu as eu les résultats de ton IRM ?",
           "Marc Lefèvre, 18:03 : Oui, hernie discale, je suis en arrêt jusqu'au 20 "
           "novembre.",
           "Claire Dubois, 18:04 : Courage. Je préviens la cheffe, mais je ne dis rien aux "
           "autres.")),
]

ARTICLES: list[Plain] = [
    Plain("health", "en", "https://www.healthwise-notes.org/depression-treatment",
          "How depression is treated", "deprtreatq",
          ("Depression is usually treated with talking therapy, medication or both.",
           "Doctors often start antidepressants such as escitalopram at a low dose, for "
           "example 5 or 10 mg a day, and review them after a few weeks.",
           "Most people feel better within two to three months.")),
    Plain("finance", "en", "https://www.moneyplain.org/reading-a-bank-statement",
          "How to read a bank statement", "bankreadq",
          ("A bank statement lists the deposits, payments and fees on an account over a month.",
           "For example, a card payment at a supermarket appears as a debit, and a salary as "
           "a credit.", "Experts suggest checking statements every month to spot fraud early.")),
    Plain("payroll", "de", "https://www.arbeit-verstehen.de/gehaltsabrechnung-erklaert",
          "Gehaltsabrechnung erklärt", "gehaltklarq",
          ("Auf der Gehaltsabrechnung stehen das Bruttogehalt und die gesetzlichen Abzüge.",
           "Zum Beispiel bleiben bei 3.000 Euro brutto in Steuerklasse I meist rund 2.000 Euro "
           "netto.", "Arbeitgeber müssen die Abrechnung jeden Monat aushändigen.")),
    Plain("chat", "de", "https://www.digital-wissen.de/matrix-protokoll",
          "Das Matrix-Protokoll einfach erklärt", "matrixwisq",
          ("Matrix ist ein offenes Protokoll für verschlüsselte Chats zwischen Servern.",
           "Familien und Vereine betreiben oft einen eigenen Server, etwa mit Synapse.",
           "Nachrichten in privaten Räumen sind in der Regel Ende-zu-Ende-verschlüsselt.")),
    Plain("finance", "fr", "https://www.argent-clair.fr/banque-en-ligne",
          "La banque en ligne, comment ça marche", "banqligneq",
          ("Une banque en ligne permet de gérer ses comptes depuis un ordinateur ou un "
           "téléphone.", "Les frais sont généralement plus bas que dans une agence.",
           "Par exemple, la carte bancaire est souvent gratuite sous condition de revenus.")),
    Plain("health", "fr", "https://www.sante-pratique.fr/anxiete-generalisee",
          "Le trouble anxieux généralisé", "anxietepq",
          ("Le trouble anxieux généralisé se traduit par des inquiétudes excessives et "
           "durables.", "Les médecins proposent souvent une psychothérapie, parfois associée "
           "à un antidépresseur comme la sertraline.",
           "La plupart des patients vont mieux en quelques mois.")),
]

def pages() -> list[Any]:
    """Every page of this module, to be served (capture_pages.Page)."""
    return [p.page() for p in [*PRIVATE, *ARTICLES]]
