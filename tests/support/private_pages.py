"""Private screens on hostnames no rule list holds, in two languages per category, articles
about each topic, and borderline pages — for the content check in a real browser
(tests/browser/test_capture_content.py) and on the host (tests/capture/test_sensitive.py).

Written apart from the labelled pages the check is fitted on (tests/data/sensitive_pages/)
and never fitted on: they stand for "a site and a page the check never saw". Each page has a
made-up word (`mark`) found nowhere else, so a test can ask whether any of it was stored.
Served by demo.sites.NamedSites under their hostnames, like tests/browser/capture_pages.py's
pages (`page()` makes one: only the browser tests need it).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Screen:
    """A private screen as a signed-in web app draws it."""

    category: str
    lang: str
    url: str
    title: str
    mark: str
    nav: tuple[str, ...]  # the app's menu, the account menu, sign-out
    lines: tuple[str, ...]  # the main content, one block a line ("## " starts a heading)
    app: str = ""  # <meta name="application-name">
    composer: str = ""  # the placeholder of a message box, if it has one
    signed_in: bool = True  # False: the last menu item is a sign-in, not a sign-out

    def signals(self) -> dict:
        """What extension/content/signals.js reads from `page()` (for host tests)."""
        controls = [*self.nav, *(["href:logout"] if self.signed_in else [])]
        return {"lang": self.lang, "app": [self.app] if self.app else [],
                "manifest": bool(self.app), "controls": controls,
                "editors": int(bool(self.composer))}

    def text(self) -> tuple[str, list[str]]:
        """The title and passages the extension would send, near enough (host tests)."""
        return self.title, ["\n".join(ln.removeprefix("## ") for ln in self.lines)
                            + f"\n{self.mark}"]

    def page(self) -> Any:
        from capture_pages import Page  # tests/browser: the served page

        nav = "".join(f"<a href='/{_slug(n)}'>{html.escape(n)}</a> " for n in self.nav[:-1])
        last = self.nav[-1]
        last_href = "/logout" if self.signed_in else f"/{_slug(last)}"
        head = (f"<meta name='application-name' content='{html.escape(self.app)}'>"
                "<link rel='manifest' href='/manifest.json'>" if self.app else "")
        blocks = []
        for line in self.lines:
            if line.startswith("## "):
                blocks.append(f"<h2>{html.escape(line[3:])}</h2>")
            else:
                blocks.append(f"<li>{html.escape(line)}</li>")
        body = (f"<header><nav>{nav}<div class='account'><button aria-label='"
                f"{html.escape(self.nav[-2])}'>{html.escape(self.nav[-2])}</button>"
                f"<a href='{last_href}'>{html.escape(last)}</a></div></nav></header>"
                f"<main><h1>{html.escape(self.title.split(' – ')[0])}</h1><ul>{''.join(blocks)}"
                f"</ul><p class='ref'>{self.mark}</p>"
                + (f"<div contenteditable='true' role='textbox' aria-label='"
                   f"{html.escape(self.composer)}'></div>" if self.composer else "")
                + "</main>")
        return Page(self.url, self.title, self.mark, body, head=head, lang=self.lang)


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in s.lower())[:30] or "x"


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


PRIVATE: list[Screen] = [
    Screen("mail", "de", "https://post.familie-krueger.de/?_task=mail&_mbox=INBOX",
           "Posteingang (5) – Webmail Familie Krüger", "postkrugzel",
           ("E-Mail", "Kontakte", "Einstellungen", "Mein Konto", "Abmelden"),
           ("## Posteingang – 5 ungelesen", "Verfassen · Antworten · Weiterleiten · Löschen",
            "Hausarztpraxis Becker — Ihr Befund liegt vor — 08:41",
            "Kita Regenbogen — Elternabend am Donnerstag — 07:55",
            "Vermieterin Schulz — Wasserschaden im Bad — gestern",
            "Finanzamt Kassel — Ihr Steuerbescheid 2024 — Mo.",
            "Oma Hilde — Bilder vom Sonntag — 02.11."), app="Roundcube Webmail"),
    Screen("mail", "pt", "https://correio.casa-almeida.pt/caixa/?pasta=entrada",
           "Caixa de entrada (3) – Correio Casa Almeida", "correalmvix",
           ("Correio", "Contactos", "Calendário", "A minha conta", "Terminar sessão"),
           ("## Caixa de entrada – 3 por ler", "Escrever · Responder · Reencaminhar · Eliminar",
            "Centro de Saúde de Benfica — Resultados das análises — 09:12",
            "Senhorio — Renda de dezembro — ontem",
            "Escola do Alto — Reunião de pais — 12/11",
            "Mãe — Fotografias do Natal — seg")),
    Screen("chat", "fr", "https://discussion.asso-tilleuls.fr/tilleuls/pl/8812",
           "Julie Roux – Discussion des Tilleuls", "chatjulvorp",
           ("Canaux", "Messages directs", "Fils", "Profil", "Se déconnecter"),
           ("## Julie Roux", "Julie Roux 18:02",
            "Tu as pu avoir le rendez-vous chez le gynéco pour jeudi ?",
            "Marc Petit 18:05", "Oui, à 9h. Je préfère que personne ne le sache encore.",
            "Julie Roux 18:06", "Promis. Appelle-moi après si tu veux parler."),
           app="Mattermost", composer="Écrire à Julie Roux"),
    Screen("chat", "ja", "https://talk.yamada-lab.jp/#narrow/dm/7-sato",
           "佐藤 健 - 山田研究室チャット", "chatsatoqil",
           ("受信トレイ", "ダイレクトメッセージ", "チャンネル", "個人設定", "ログアウト"),
           ("## 佐藤 健 とのダイレクトメッセージ", "佐藤 健 21:14",
            "先生に休学の相談をしたよ。うつの診断書も出した",
            "山田 花子 21:16", "話してくれてありがとう。無理しないでね", "佐藤 健 21:17",
            "みんなにはまだ言わないで"),
           app="Zulip", composer="佐藤 健 へのメッセージ"),
    Screen("finance", "nl", "https://bankieren.spaarbank-noord.nl/rekeningen/transacties",
           "Transacties – Spaarbank Noord", "banknoorfex",
           ("Overzicht", "Betalen", "Sparen", "Berichten", "Mijn profiel", "Uitloggen"),
           ("## Betaalrekening NL02 **** **** **12 34", "Saldo € 2.104,17",
            "05-11-2025 Jumbo Groningen - € 48,20", "04-11-2025 Essent termijnbedrag - € 96,00",
            "01-11-2025 Huur november - € 1.040,00",
            "31-10-2025 Salaris Noordzee B.V. + € 3.012,55",
            "30-10-2025 Geldautomaat - € 40,00")),
    Screen("finance", "ru", "https://lk.bank-yug.ru/schet/istoriya",
           "История операций – Банк Юг Онлайн", "bankyugzorn",
           ("Главная", "Счета", "Платежи", "Сообщения", "Профиль", "Выйти"),
           ("## Карта •• 9921", "Баланс 31 204,50 ₽",
            "05.11.2025 Магнит, Краснодар −842,10 ₽", "03.11.2025 Оплата ЖКУ −4 210,00 ₽",
            "01.11.2025 Перевод Петровой А. И. −7 000,00 ₽",
            "31.10.2025 Зарплата ООО «Кубань-Агро» +58 300,00 ₽")),
    Screen("crypto", "en", "https://vault.hodl-harbor.net/portfolio",
           "Portfolio – Hodl Harbor", "cryptharbx",
           ("Trade", "Portfolio", "Deposit", "Withdraw", "Account", "Log out"),
           ("## Total balance $6,412.90", "BTC 0.0612 $4,210.55", "ETH 0.7100 $1,980.12",
            "USDC 222.23 $222.23", "## Recent activity", "Nov 4 Bought 0.004 BTC $275.10",
            "Nov 2 Sent 0.2 ETH to 0x52908400098527886E0F7030069857D2E4169EE7")),
    Screen("crypto", "es", "https://monedero.cripto-sur.es/cartera",
           "Mi cartera – Cripto Sur", "criptsurwen",
           ("Cartera", "Comprar", "Vender", "Retirar", "Mi cuenta", "Cerrar sesión"),
           ("## Saldo total 3.804,20 €", "Bitcoin 0,0411 BTC · 2.801,30 €",
            "Ethereum 0,33 ETH · 918,40 €", "## Movimientos",
            "04/11/2025 Compra 0,002 BTC 136,50 €",
            "01/11/2025 Retiro 0,1 ETH a 0xF8C3527CC04340b208C854E985240c02F7B7Ab6b")),
    Screen("payroll", "es", "https://portal.gestoria-montes.es/personal/recibos/2025-10",
           "Nómina octubre 2025 – Portal del empleado", "nominmonqua",
           ("Inicio", "Nóminas", "Vacaciones", "Mi perfil", "Cerrar sesión"),
           ("## Recibo de salarios octubre 2025", "Trabajador: Javier Montes Ruiz · NIF 48211934J",
            "Salario base 1.720,00 €", "Plus transporte 90,00 €", "Total devengado 1.810,00 €",
            "IRPF 12,00 % 217,20 €", "Seguridad Social 6,35 % 114,94 €",
            "Líquido a percibir 1.477,86 €")),
    Screen("payroll", "it", "https://dipendenti.studio-bassi.it/cedolini/2025-10",
           "Cedolino ottobre 2025 – Studio Bassi", "cedolbasrix",
           ("Home", "Cedolini", "Presenze", "Profilo", "Esci"),
           ("## Cedolino paga ottobre 2025", "Dipendente: Marta Bassi · Matricola 0077",
            "Retribuzione lorda 2.340,00 €", "Contributi INPS -215,04 €",
            "IRPEF netta -402,11 €", "Netto in busta 1.722,85 €")),
    Screen("tax", "de", "https://steuer.kanzlei-vogel.de/mandant/erklaerung-2024",
           "Einkommensteuererklärung 2024 – Mandantenportal", "steuvogbrix",
           ("Übersicht", "Belege", "Nachrichten", "Mein Konto", "Abmelden"),
           ("## Steuererklärung 2024 – Jonas Vogel", "Bruttoarbeitslohn 52.410,00 €",
            "Werbungskosten 2.880,00 €", "Sonderausgaben 1.410,00 €",
            "Voraussichtliche Erstattung 1.126,40 €", "Status: zur Prüfung beim Steuerberater")),
    Screen("tax", "zh", "https://geshui.li-jiating.cn/2024/huisuan",
           "2024年度个税汇算 – 李家", "geshulizor",
           ("首页", "收入", "专项附加扣除", "我的", "退出登录"),
           ("## 2024年度综合所得汇算 · 李明", "工资薪金收入 ¥186,400.00", "子女教育扣除 ¥24,000.00",
            "住房贷款利息扣除 ¥12,000.00", "应退税额 ¥1,842.00", "待提交申报")),
    Screen("insurance", "fr", "https://espace.mutuelle-alpine.fr/sinistres/HAB-2025-4471",
           "Sinistre HAB-2025-4471 – Mutuelle Alpine", "sinalpqorv",
           ("Mes contrats", "Mes sinistres", "Mes documents", "Mon compte", "Se déconnecter"),
           ("## Dégât des eaux – dossier HAB-2025-4471", "Statut : expertise le 21/11/2025 à 14:00",
            "Contrat habitation n° 0072231 · Franchise 150 €",
            "Montant estimé : 1 980,00 €", "Constat_amiable.pdf · 30/10/2025")),
    Screen("insurance", "nl", "https://mijn.verzekeraar-delta-west.nl/declaraties",
           "Declaraties – Delta West Zorg", "declwestyo",
           ("Mijn polis", "Declaraties", "Eigen risico", "Mijn gegevens", "Uitloggen"),
           ("## Polisnummer 883104422", "Eigen risico 2025: € 385,00 · verbruikt € 201,10",
            "03-11-2025 Fysiotherapie Zwolle · € 78,00 · vergoed",
            "19-10-2025 Apotheek Centrum · € 32,50 · eigen risico")),
    Screen("health", "it", "https://referti.poliambulatorio-sanmarco.it/paziente/referti",
           "I miei referti – Poliambulatorio San Marco", "refermarquz",
           ("Prenotazioni", "Referti", "Ricette", "Profilo", "Esci"),
           ("## Paziente: Luca Ferri · nato il 12/04/1979",
            "Referto del 04/11/2025 – Esami del sangue",
            "Glicemia 131 mg/dL (70–100) alto", "Colesterolo LDL 171 mg/dL alto",
            "Terapia: Atorvastatina 20 mg, 1 compressa la sera",
            "Prossima visita: 02/12/2025 ore 10:15")),
    Screen("health", "ja", "https://mypage.hikari-iin.jp/results/20251104",
           "検査結果 – ひかり医院 マイページ", "kensahikzu",
           ("予約", "検査結果", "処方", "マイページ", "ログアウト"),
           ("## 患者 鈴木 一郎 様 · 生年月日 1976年5月2日", "2025年11月4日 血液検査",
            "HbA1c 6.9% 高", "空腹時血糖 128 mg/dL 高", "処方: メトホルミン 500mg 1日2回",
            "次回受診 2025年12月2日 9:30")),
    Screen("therapy", "en", "https://app.quietmind-care.com/room/messages",
           "Messages – QuietMind Care", "therquietx",
           ("Room", "Sessions", "Journal", "Billing", "Account", "Log out"),
           ("## Your therapist: Dr. Nora Blake",
            "Dr. Blake: Hi Sam, I read your journal from the weekend. The panic attack at "
            "your sister's wedding sounds frightening, and leaving early was a reasonable "
            "way to look after yourself.", "Monday 8:40 AM",
            "You: I still feel ashamed. I haven't slept properly since and I cancelled work "
            "twice this week.", "Monday 11:52 PM",
            "Dr. Blake: Let's talk it through on Thursday at 5:00 PM. Keep the mood log going.",
            "PHQ-9 this week: 15"), composer="Write to Dr. Blake"),
    Screen("therapy", "de", "https://praxis.psychotherapie-lindner.de/klienten/verlauf",
           "Mein Verlauf – Praxis Lindner Online", "verlinthox",
           ("Übersicht", "Termine", "Übungen", "Nachrichten", "Profil", "Abmelden"),
           ("## Ihre Therapeutin: Dr. Eva Lindner",
            "Nächste Sitzung: Donnerstag, 13.11., 16:00 Uhr (Video)",
            "Notiz zur Sitzung vom 06.11.: Wir haben über die Trennung und die Schlafstörungen "
            "gesprochen. Sie berichteten von Grübeln und Angst vor dem Alleinsein.",
            "Stimmungstagebuch: gedrückt 7/10 · Angst 6/10",
            "Medikation laut Hausarzt: Sertralin 50 mg morgens")),
    Screen("government", "pt", "https://cidadao.servicos-municipais.pt/area-pessoal",
           "Área pessoal – Serviços Municipais", "govmunpita",
           ("Início", "Pedidos", "Notificações", "Os meus dados", "Terminar sessão"),
           ("## Olá, Rui Mendes", "Último acesso: 05/11/2025 às 20:41",
            "Pedido de habitação social · processo HS-2025-0412 · em análise",
            "Cartão de Cidadão · pronto para levantamento",
            "NIF 210 447 113 · Data de nascimento 14/08/1985")),
    Screen("government", "ru", "https://lk.uslugi-oblasti.ru/zayavleniya",
           "Мои заявления – Личный кабинет", "zayavoblqe",
           ("Главная", "Заявления", "Уведомления", "Профиль", "Выйти"),
           ("## Здравствуйте, Ирина Сергеевна", "Последний вход: 05.11.2025 в 21:10",
            "Субсидия на оплату ЖКУ · № 88-4412 · на рассмотрении",
            "Загранпаспорт · готов к выдаче", "СНИЛС 112-233-445 95 · ИНН 231012345678")),
    Screen("account", "zh", "https://zhanghao.wang-nas.cn/zhanghao/anquan",
           "账号安全 – 王家NAS", "anquanwangq",
           ("个人资料", "账号安全", "登录设备", "个人中心", "退出登录"),
           ("## 账号安全", "登录密码 上次修改 2025-03-02", "两步验证：已开启",
            "备用验证码：剩余 4 个",
            "## 登录设备", "Windows 上的 Edge · 杭州 · 当前在线", "Android · 3天前 · 下线",
            "## 访问令牌", "backup-script · 最近使用 2小时前 · 撤销")),
    Screen("account", "fr", "https://compte.forge-dupuis.fr/moi/securite",
           "Sécurité – Forge Dupuis", "secudupvix",
           ("Tableau de bord", "Dépôts", "Profil", "Paramètres", "Se déconnecter"),
           ("## Sécurité", "Authentification à deux facteurs : activée",
            "Codes de secours : 3 restants · Générer de nouveaux codes",
            "## Jetons d'accès", "deploiement-ci · dernière utilisation il y a 4 h · Révoquer",
            "## Sessions", "Firefox sur Linux · Grenoble · maintenant")),
    Screen("files", "de", "https://daten.familie-brandt.de/index.php/f/Dokumente",
           "Dokumente – Familienablage", "ablagbrazix",
           ("Dateien", "Fotos", "Aktivität", "Einstellungen", "Abmelden"),
           ("## Alle Dateien › Dokumente", "Reisepass_Lena_Scan.pdf 2,3 MB vor 2 Monaten",
            "Arztbrief_Kardiologie.pdf 640 KB vor 1 Woche",
            "Mietvertrag_Hauptstrasse.pdf 1,1 MB vor 3 Jahren",
            "Lohnsteuerbescheinigung_2024.pdf 180 KB vor 8 Monaten",
            "4 Dateien · 4,2 MB"), app="Nextcloud"),
    Screen("files", "es", "https://nube.casa-navarro.es/carpetas/documentos",
           "Documentos – Nube Navarro", "nubenavpel",
           ("Archivos", "Fotos", "Compartidos", "Ajustes", "Cerrar sesión"),
           ("## Todos los archivos › Documentos", "DNI_Ana_ambas_caras.pdf 1,7 MB hace 3 meses",
            "Informe_ecografia.pdf 880 KB hace 2 semanas",
            "Hipoteca_escritura.pdf 9,8 MB hace 4 años",
            "Vida_laboral_2025.pdf 210 KB hace 1 mes")),
    Screen("dating", "it", "https://app.cuori-vicini.it/messaggi/paolo",
           "Messaggi con Paolo – Cuori Vicini", "cuorivicpax",
           ("Scopri", "Piaci a", "Messaggi", "Il mio profilo", "Esci"),
           ("## Paolo, 41 · a 7 km · online ora", "Affinità 88 %",
            "Paolo: Ciao Elena! Anche tu ami la vela? Che bella la foto a Ponza",
            "Tu: Ciao! Sì, ogni estate. Ti va un caffè sabato?",
            "Paolo: Volentieri, alle 11 in piazza?", "Letto alle 22:14"),
           composer="Scrivi un messaggio…"),
    Screen("dating", "en", "https://heartline-dates.com/app/likes",
           "Likes you (9) – Heartline", "heartlinpov",
           ("Discover", "Likes you", "Chats", "My profile", "Sign out"),
           ("## 9 people like you", "Jordan, 33 · 4 miles away · Liked your photo",
            "Casey, 29 · 2 miles away · Super liked you",
            "Riley, 38 · 9 miles away · Liked your prompt",
            "Profile views this week: 31")),
    Screen("adult", "nl", "https://www.heetfilmpjes.nl/",
           "Gratis sexfilms en porno – HeetFilmpjes", "heetfilnox",
           ("Home", "Categorieën", "Camsex", "Registreren", "Inloggen"),
           ("## Alleen voor volwassenen (18+)",
            "Geile buurvrouw neukt in de keuken 11:20 · 820.000x",
            "Amateur stel thuis gefilmd 9:12 · 410.000x", "Lesbische massage 14:05 · 660.000x",
            "Categorieën: Amateur, Milf, Lesbisch, Anaal"), signed_in=False),
    Screen("adult", "pt", "https://www.videosquentes-br.com/",
           "Vídeos pornô grátis – VideosQuentes", "quentebrox",
           ("Início", "Categorias", "Ao vivo", "Cadastre-se", "Entrar"),
           ("## Somente maiores de 18 anos", "Casal amador transando no sofá 10:40 · 1,1 mi",
            "Gostosa no chuveiro 8:15 · 720 mil", "Coroa safada com o vizinho 16:02 · 930 mil",
            "Sexo ao vivo na webcam – 640 garotas online"), signed_in=False),
    Screen("search", "en", "https://find.kesterfamily.org/search?q=early+signs+of+dementia",
           "early signs of dementia - Find", "searchkestx",
           ("All", "Images", "News", "Settings", "Preferences"),
           ("About 2,310,000 results", "Early signs of dementia: what to look for",
            "www.alzheimers.example › about › early-signs",
            "Memory loss that disrupts daily life, trouble finding words...",
            "Dementia symptoms - NHS", "www.nhs.example › conditions › dementia › symptoms",
            "Related searches", "dementia test online", "Next page"), app="SearXNG",
           signed_in=False),
    Screen("search", "zh", "https://sousuo.chen-jia.cn/search?q=离婚+财产+分割",
           "离婚 财产 分割 - 搜索", "sousuochenz",
           ("全部", "图片", "新闻", "设置", "偏好"),
           ("找到约 3,410,000 条结果", "离婚时夫妻共同财产如何分割",
            "www.falv-zixun.example › hunyin › caichan",
            "夫妻在婚姻关系存续期间所得的财产...", "民法典关于离婚财产分割的规定",
            "www.fagui.example › minfadian › 1087", "相关搜索", "离婚协议书范本",
            "下一页"), app="SearXNG",
           signed_in=False),
]

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
    """`lang`'s journal entry with its first `sentences` sentences (2 or more)."""
    url, app, nav, greeting, day, tags, prose = _JOURNAL[lang]
    mark = f"{_MARK[lang]}{chr(ord('a') + sentences)}q"
    return Screen("private", lang, f"{url}-{sentences}", f"{day} – {app}", mark, nav,
                  (greeting, day, *prose[:sentences], tags))


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


def pages() -> list[Any]:
    """Every page of this module, to be served (capture_pages.Page)."""
    return [p.page() for p in [*PRIVATE, *ARTICLES, *(s for v in JOURNALS.values() for s in v)]]
