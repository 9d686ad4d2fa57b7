"""Articles about each private category's topic, as a news site or an encyclopedia draws
them for a reader not signed in (`ARTICLES`): pages the content check must record. Part of
support.private_pages (see its docstring).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Article:
    """An article as a news site or an encyclopedia draws it, for a reader not signed in."""

    url: str
    title: str
    mark: str
    lang: str
    signin: str
    paras: tuple[str, ...]

    def signals(self) -> dict:
        return {"lang": self.lang, "app": [], "manifest": False,
                "controls": ["Home", self.signin], "editors": 0}

    def text(self) -> tuple[str, list[str]]:
        return self.title, ["\n".join([*self.paras, self.mark])]

    def page(self) -> Any:
        from capture_pages import Page  # tests/browser: the served page

        body = (f"<header><nav><a href='/'>Home</a> <a href='/login'>{html.escape(self.signin)}"
                f"</a></nav></header><main><article><h1>"
                f"{html.escape(self.title.split(' - ')[0])}</h1>"
                + "".join(f"<p>{html.escape(p)}</p>" for p in self.paras)
                + f"<p>{self.mark}</p></article></main><footer>© {self.lang}</footer>")
        return Page(self.url, self.title, self.mark, body, lang=self.lang)


def article(url: str, title: str, mark: str, lang: str, signin: str, *paras: str) -> Article:
    return Article(url, title, mark, lang, signin, paras)


ARTICLES: list[Article] = [
    article("https://www.mailfacts.org/how-email-works", "How email works - Mail Facts",
            "mailfactzu", "en", "Log in",
            "Email moves between servers using SMTP. When you press send, your mail client "
            "hands the message to an outgoing server, which looks up the recipient's domain.",
            "The receiving server stores the message in a mailbox until the recipient's client "
            "fetches it with IMAP or shows it in a webmail interface."),
    article("https://wissen.digitalverein.de/team-chat-selbst-hosten", "Team-Chat selbst "
            "hosten - Digitalverein", "chatwisqel", "de", "Anmelden",
            "Vereine und kleine Firmen betreiben ihren Team-Chat zunehmend selbst, etwa mit "
            "Matrix, Mattermost oder Rocket.Chat. Die Nachrichten bleiben so auf dem eigenen "
            "Server.", "Wichtig sind regelmäßige Updates, Backups und eine klare Regel, wer "
            "welche Kanäle sehen darf."),
    article("https://www.argent-pratique.fr/comprendre-son-releve-bancaire", "Comprendre son "
            "relevé bancaire - Argent Pratique", "relevepraq", "fr", "Se connecter",
            "Un relevé bancaire récapitule les opérations d'un compte sur une période : "
            "virements, prélèvements, paiements par carte et retraits.",
            "Il faut le vérifier chaque mois pour repérer une erreur ou une fraude. Les banques "
            "doivent conserver ces informations pendant plusieurs années."),
    article("https://www.economia-chiara.it/criptovalute-come-funziona-un-exchange",
            "Come funziona un exchange di criptovalute - Economia Chiara", "exchchiarv", "it",
            "Accedi", "Un exchange di criptovalute permette di comprare e vendere bitcoin ed "
            "ether in cambio di euro. Molti custodiscono le chiavi private dei clienti.",
            "Dal 2024 il regolamento europeo MiCA impone a questi operatori un'autorizzazione "
            "e regole sulla custodia dei fondi."),
    article("https://www.werkenwijzer.nl/loonstrook-lezen", "Zo lees je je loonstrook - "
            "Werkenwijzer", "loonwijzqa", "nl", "Inloggen",
            "Op je loonstrook staan je brutoloon, de inhoudingen voor loonheffing en pensioen, "
            "en het nettobedrag dat je ontvangt.",
            "Controleer vooral of je uren, toeslagen en de heffingskorting kloppen. Fouten kun "
            "je het beste meteen bij de salarisadministratie melden."),
    article("https://www.guia-impuestos.es/renta-2024-novedades", "Novedades de la renta "
            "2024 - Guía de Impuestos", "rentaguinx", "es", "Iniciar sesión",
            "La campaña de la renta de 2024 trae cambios en las deducciones por vivienda y por "
            "maternidad. El borrador se puede revisar desde abril.",
            "Antes de confirmarlo conviene comprobar las deducciones autonómicas, que a menudo "
            "no aparecen y pueden suponer cientos de euros."),
    article("https://www.seguros-claros.pt/franquia-seguro-automovel", "O que é a franquia "
            "no seguro automóvel - Seguros Claros", "franquclar", "pt", "Entrar",
            "A franquia é a parte do prejuízo que fica a cargo do tomador do seguro em caso de "
            "sinistro. Quanto maior a franquia, menor o prémio.",
            "Antes de escolher, compare a poupança no prémio com o que teria de pagar num "
            "acidente."),
    article("https://zdorovie-znaniya.ru/saharnyi-diabet-2-tipa", "Сахарный диабет 2 типа - "
            "Здоровье и знания", "diabetznan", "ru", "Войти",
            "Сахарный диабет 2 типа развивается, когда клетки хуже реагируют на инсулин. "
            "Долгое время болезнь может протекать без симптомов.",
            "Лечение начинают с питания и физической активности; при необходимости врач "
            "назначает метформин."),
    article("https://kokoro-no-manabi.jp/ninchi-koudou-ryouhou", "認知行動療法とは - こころの学び",
            "ninchimanz", "ja", "ログイン",
            "認知行動療法は、考え方のくせに気づき、行動を少しずつ変えていく心理療法である。うつ病や不安障害に効果があるとされる。",
            "多くの場合、週に一度のセッションを十数回行い、その間に記録などの課題に取り組む。"),
    article("https://zhengwu-zhishi.cn/dianzi-zhengwu-fazhan", "电子政务的发展 - 政务知识",
            "zhengwuzhq", "zh", "登录",
            "电子政务让市民可以在网上办理社保、公积金和证照等业务，减少了排队和往返。",
            "各地政务服务平台通过统一身份认证，实现一个账号办理多个部门的事项。"),
    article("https://sicherheit-ratgeber.de/passwort-manager-vergleich", "Passwort-Manager "
            "im Vergleich - Sicherheit Ratgeber", "passratgex", "de", "Anmelden",
            "Ein Passwort-Manager speichert alle Zugangsdaten verschlüsselt und erzeugt für "
            "jeden Dienst ein eigenes, langes Passwort.",
            "Wichtig ist ein starkes Hauptpasswort und die Zwei-Faktor-Authentifizierung für "
            "den Tresor selbst."),
    article("https://www.numerique-facile.fr/cloud-familial-nextcloud", "Un cloud familial "
            "avec Nextcloud - Numérique Facile", "cloudfacix", "fr", "Se connecter",
            "Nextcloud permet d'héberger chez soi un espace de fichiers partagé par toute la "
            "famille, avec synchronisation des photos du téléphone.",
            "Il faut prévoir des sauvegardes régulières et un accès sécurisé depuis "
            "l'extérieur."),
    article("https://www.psicologia-hoy.es/citas-online-consejos", "Citas online: consejos "
            "para una primera cita segura - Psicología Hoy", "citasonlin", "es", "Acceder",
            "Las aplicaciones de citas han cambiado la forma de conocer pareja. Para una primera "
            "cita, los expertos aconsejan quedar en un lugar público.",
            "También recomiendan avisar a un amigo y no compartir datos personales demasiado "
            "pronto."),
    article("https://www.mediastudies.org/online-pornography-regulation", "How countries "
            "regulate online pornography - Media Studies", "pornregulx", "en", "Log in",
            "Several countries now require adult websites to verify the age of their visitors, "
            "using identity documents or third-party checks.",
            "Critics worry about privacy and the security of the databases these checks "
            "create."),
    article("https://www.motori-di-ricerca.it/come-funziona-il-ranking", "Come funziona il "
            "ranking dei motori di ricerca - Motori di Ricerca", "rankingmoz", "it", "Accedi",
            "I motori di ricerca ordinano i risultati in base a centinaia di segnali, tra cui "
            "il contenuto delle pagine e i link che ricevono.",
            "Per questo le pagine ben scritte e citate da altri siti compaiono più in alto."),
]
