"""Private screens on hostnames no rule list holds, in two languages per category, as a
signed-in web app draws them (`PRIVATE`), with the `Screen` they are made of. Part of
support.private_pages (see its docstring).
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
