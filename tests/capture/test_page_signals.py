"""What a page says of itself (rewind.capture.page_signals): hostile input bounded, and the
signals of a signed-in screen read in every language."""

import numpy as np
import pytest
from rewind.capture.page_signals import (
    MAX_CONTROLS,
    SIGNAL_FEATURES,
    PageSignals,
    declared_categories,
    signal_features,
)


def features(**raw) -> dict[str, float]:
    vec = signal_features(PageSignals.from_dict({"controls": [], **raw}))
    return dict(zip(SIGNAL_FEATURES, vec.tolist(), strict=True))


def test_no_signals_is_all_zeros():
    assert PageSignals.from_dict(None) is None
    assert not signal_features(None).any()


def test_hostile_input_is_bounded_and_typed():
    s = PageSignals.from_dict({"controls": ["x" * 5000] * 1000 + [3, None], "app": "Nextcloud",
                               "editors": -4, "manifest": "yes", "lang": 7})
    assert len(s.controls) == MAX_CONTROLS and all(len(c) == 100 for c in s.controls)
    assert s.app == () and s.editors == 0 and s.manifest is False and s.lang == ""


@pytest.mark.parametrize("controls", [
    ["Home", "Sign out"], ["Übersicht", "Abmelden"], ["Accueil", "Se déconnecter"],
    ["Inicio", "Cerrar sesión"], ["Esci"], ["Uitloggen"], ["Terminar sessão"], ["Выйти"],
    ["ログアウト"], ["退出登录"], ["Home", "href:logout"],
])
def test_signed_in_in_every_language(controls):
    assert features(controls=controls)["signed_in"] == 1.0


@pytest.mark.parametrize("controls", [
    ["Main page", "Log in", "Create account"], ["Hauptseite", "Anmelden"],
    ["Accueil", "Se connecter"], ["Portada", "Acceder"], ["Entra", "Registrati"],
    ["Inloggen"], ["Entrar"], ["Войти"], ["ログイン"], ["登录", "注册"],
])
def test_a_sign_in_control_is_not_signed_in_in_every_language(controls):
    assert features(controls=controls)["signed_in"] == 0.0


def test_account_menu_greeting_editor():
    f = features(controls=["Mein Konto", "Hallo, Anna"], editors=1)
    assert (f["account_menu"], f["greeted"], f["editor"]) == (1.0, 1.0, 1.0)
    assert features(controls=["Hello, World"])["greeted"] == 0.0


def test_declared_apps_name_their_category():
    s = PageSignals.from_dict({"app": ["Roundcube Webmail"]})
    assert declared_categories(s) == ["mail"]
    assert declared_categories(PageSignals.from_dict({"app": ["Nextcloud"]})) == ["files"]
    assert declared_categories(PageSignals.from_dict({"app": ["Rocket.Chat"]})) == ["chat"]
    assert declared_categories(PageSignals.from_dict({"app": ["Discourse", "Gitea"]})) == []
    assert features(app=["Mattermost"])["app_declared"] == 1.0
    assert np.array_equal(signal_features(PageSignals()), np.zeros(len(SIGNAL_FEATURES)))
