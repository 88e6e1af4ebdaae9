"""The settings dialog: keys go only to the keyring (or memory, said plainly), other settings
to an INI file in the config dir, and Test connection reports in plain words."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QDialogButtonBox, QStyle, QStyleOptionComboBox

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.keys import LLM_KEY, SERVICE, X_KEY, YOUTUBE_KEY, KeyStore
from roundtable_desktop.llm.providers import make_client
from roundtable_desktop.paths import config_dir, data_dir, default_db_path
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.dialogs.settings_dialog import SettingsDialog
from roundtable_desktop.ui.settings_store import (
    DEFAULT_MCP_URL,
    SETTINGS_FILE,
    AppSettings,
    SecretInSettings,
)
from tests.fakes.openai_fixture import FakeOpenAI
from tests.fakes.qasync_running_loop import qasync_loop  # noqa: F401

pytestmark = pytest.mark.qt

KEY = "sk-test-7Qv2-DO-NOT-LEAK-91c4"
YT_KEY = "AIza-test-youtube-DO-NOT-LEAK-55"


@pytest.fixture
def settings() -> AppSettings:
    return AppSettings()


@pytest.fixture
def keys() -> KeyStore:
    return KeyStore()


@pytest.fixture
def dialog(qtbot, settings, keys) -> SettingsDialog:
    found = SettingsDialog(settings, keys)
    qtbot.addWidget(found)
    found.open()
    return found


@pytest.fixture
def server(fake_openai: FakeOpenAI):
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


def _choose(dialog: SettingsDialog, provider: str, base_url: str = "", model: str = "") -> None:
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData(provider))
    if base_url:
        dialog.base_url_edit.setText(base_url)
    if model:
        dialog.model_edit.setText(model)


def _save(qtbot, dialog: SettingsDialog) -> str:
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    with qtbot.waitSignal(dialog.saved) as blocker:
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def _files_containing(root: Path, secret: str) -> list[Path]:
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


# -- where keys and settings go -------------------------------------------------------


def test_saved_keys_go_to_the_keyring(qtbot, dialog, memory_keyring):
    _choose(dialog, "fireworks")
    dialog.api_key_edit.setText(KEY)
    dialog.youtube_key_edit.setText(YT_KEY)

    message = _save(qtbot, dialog)

    assert memory_keyring.secrets[(SERVICE, LLM_KEY)] == KEY
    assert memory_keyring.secrets[(SERVICE, YOUTUBE_KEY)] == YT_KEY
    assert "The API key is in the OS keyring." in message
    assert "MemoryKeyring" in dialog.keyring_status()


def test_the_x_bearer_token_for_persona_cards_goes_to_the_keyring_and_can_be_forgotten(
        qtbot, dialog, memory_keyring):
    dialog.x_token_edit.setText("x-bearer-test-DO-NOT-LEAK-0042")

    message = _save(qtbot, dialog)

    assert memory_keyring.secrets[(SERVICE, X_KEY)] == "x-bearer-test-DO-NOT-LEAK-0042"
    assert "The X bearer token is in the OS keyring." in message
    assert dialog.x_token_edit.text() == "" and dialog.forget_x_button.isEnabled()
    qtbot.mouseClick(dialog.forget_x_button, Qt.MouseButton.LeftButton)
    assert (SERVICE, X_KEY) not in memory_keyring.secrets


def test_non_secret_settings_are_kept_in_the_settings_file(qtbot, dialog, settings):
    _choose(dialog, "local", "http://127.0.0.1:8080/v1", "qwen2.5-7b")
    dialog.mcp_url_edit.setText("http://127.0.0.1:9000/mcp")

    _save(qtbot, dialog)

    reread = AppSettings()
    assert reread.path == config_dir() / SETTINGS_FILE
    assert reread.model_settings().provider == "local"
    assert reread.model_settings().model == "qwen2.5-7b"
    assert reread.mcp_url == "http://127.0.0.1:9000/mcp"


def test_no_key_string_reaches_settings_the_sessions_database_or_exports(
    qtbot, dialog, settings, keys, server, isolated_home
):
    _choose(dialog, "openai", server.base_url, "gpt-test")
    dialog.api_key_edit.setText(KEY)
    _save(qtbot, dialog)

    async def run_a_turn() -> str:
        store = SessionStore.open(default_db_path())
        client = make_client(settings.model_settings(), keys.get(LLM_KEY))
        try:
            handle = await start_session("roundtable", store=store, client=client,
                                         candidate_source=MockCatalog.load(), model="gpt-test",
                                         provider="openai")
            await handle.session.perform(Action(id="infer"))
            await handle.session.perform(Action(id="run_tools"))
            exports = data_dir() / "exports"
            exports.mkdir()
            for fmt in ("html", "md", "json"):
                text = export_session(store, handle.session_id, fmt)
                (exports / f"meeting.{fmt}").write_text(text, encoding="utf-8")
            return handle.session_id
        finally:
            await client.aclose()
            store.close()

    asyncio.run(run_a_turn())

    sent = server.requests()
    assert sent and sent[0]["key_sha256"] == hashlib.sha256(KEY.encode()).hexdigest()[:16]
    assert (config_dir() / SETTINGS_FILE).is_file()
    assert default_db_path().is_file()
    assert _files_containing(isolated_home, KEY) == []


def test_without_a_usable_keyring_the_key_stays_in_memory_and_the_dialog_says_so(
    qtbot, settings, keys, isolated_home
):
    keyring.set_keyring(keyring.backends.fail.Keyring())
    dialog = SettingsDialog(settings, keys)
    qtbot.addWidget(dialog)
    dialog.open()
    assert "kept in memory for this run only" in dialog.keyring_status()
    _choose(dialog, "fireworks")
    dialog.api_key_edit.setText(KEY)

    message = _save(qtbot, dialog)

    assert "kept in memory for this run only" in message
    assert keys.get(LLM_KEY) == KEY
    assert _files_containing(isolated_home, KEY) == []


def test_a_stored_key_is_never_shown_in_the_dialog(qtbot, settings, keys):
    keys.set(LLM_KEY, KEY)
    dialog = SettingsDialog(settings, keys)
    qtbot.addWidget(dialog)

    assert dialog.api_key_edit.text() == ""
    assert dialog.api_key_edit.echoMode() == dialog.api_key_edit.EchoMode.Password
    assert "A key is stored" in dialog.api_key_edit.placeholderText()


def test_saving_with_an_empty_key_field_keeps_the_stored_key(qtbot, settings, keys):
    keys.set(LLM_KEY, KEY)
    dialog = SettingsDialog(settings, keys)
    qtbot.addWidget(dialog)
    _choose(dialog, "fireworks")

    _save(qtbot, dialog)

    assert keys.get(LLM_KEY) == KEY


def test_forget_key_removes_it_from_the_keyring(qtbot, settings, keys, memory_keyring):
    keys.set(LLM_KEY, KEY)
    dialog = SettingsDialog(settings, keys)
    qtbot.addWidget(dialog)

    qtbot.mouseClick(dialog.forget_key_button, Qt.MouseButton.LeftButton)

    assert (SERVICE, LLM_KEY) not in memory_keyring.secrets
    assert dialog.api_key_edit.placeholderText() == "No key set"


def test_choosing_a_preset_fills_base_url_and_model(dialog):
    _choose(dialog, "fireworks")

    assert dialog.base_url_edit.text() == "https://api.fireworks.ai/inference/v1"
    assert dialog.model_edit.text() == "fireworks/gpt-oss-20b"
    assert dialog.api_key_edit.isEnabled()


def test_the_mcp_bridge_url_defaults_to_the_bundled_server(dialog):
    assert dialog.mcp_url_edit.text() == DEFAULT_MCP_URL == "http://127.0.0.1:8081/mcp"


def test_a_bad_base_url_is_refused_with_a_reason(qtbot, dialog, settings):
    _choose(dialog, "openai", "api.openai.com/v1")

    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()

    assert "must start with http:// or https://" in dialog.error_label.text()
    assert settings.model_settings().provider == "offline"


def test_the_x_api_address_is_kept_in_settings_and_is_where_persona_cards_read_x(
        qtbot, dialog, monkeypatch):
    from roundtable_desktop.sources.endpoints import X_API, base_url, use_setting

    monkeypatch.delenv("ROUNDTABLE_X_BASE_URL", raising=False)
    dialog.x_base_url_edit.setText("http://127.0.0.1:9911/2")
    try:
        _save(qtbot, dialog)
        assert AppSettings().x_base_url == "http://127.0.0.1:9911/2"
        assert base_url(X_API, "https://api.x.com/2") == "http://127.0.0.1:9911/2"
    finally:
        use_setting(X_API, "")


def test_an_x_api_address_that_is_no_http_url_is_refused_with_a_reason(dialog, settings):
    dialog.x_base_url_edit.setText("api.x.com/2")

    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()

    assert dialog.error_label.text() == \
        "The X API address must start with http:// or https://."
    assert settings.x_base_url == ""


def test_the_settings_file_refuses_secret_looking_names(settings):
    with pytest.raises(SecretInSettings):
        settings.set_value("llm/api_key", KEY)


# -- Test connection --------------------------------------------------------------------


@pytest.mark.usefixtures("qasync_loop")
def test_test_connection_reports_ok_with_latency(qtbot, dialog, server):
    _choose(dialog, "openai", server.base_url, "gpt-test")
    dialog.api_key_edit.setText(KEY)

    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: dialog.test_label.text().startswith("OK"), timeout=10_000)
    assert "127.0.0.1 answered in" in dialog.test_label.text()
    assert " ms " in dialog.test_label.text()
    body = server.requests()[0]["body"]
    assert body["max_tokens"] == 1 and body["model"] == "gpt-test"


@pytest.mark.usefixtures("qasync_loop")
def test_test_connection_says_when_the_key_is_rejected(qtbot, dialog, server):
    server.script([{"kind": "status", "status": 401,
                    "body": {"error": {"message": "Invalid API key"}}}])
    _choose(dialog, "openai", server.base_url, "gpt-test")
    dialog.api_key_edit.setText(KEY)

    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: dialog.test_label.text() != "Testing…", timeout=10_000)
    assert dialog.test_label.text().startswith("The key was rejected (401)")
    assert KEY not in dialog.test_label.text()


@pytest.mark.usefixtures("qasync_loop")
def test_test_connection_says_when_the_server_cannot_be_reached(qtbot, dialog):
    _choose(dialog, "local", "http://127.0.0.1:9/v1", "local-model")

    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: dialog.test_label.text() != "Testing…", timeout=10_000)
    assert dialog.test_label.text().startswith("Could not connect to http://127.0.0.1:9/v1")


def test_forget_key_is_disabled_while_no_key_is_stored(dialog):
    assert not dialog.forget_key_button.isEnabled()
    assert not dialog.forget_youtube_button.isEnabled()


def test_forget_key_is_enabled_once_a_key_is_saved(qtbot, dialog):
    _choose(dialog, "fireworks")
    dialog.api_key_edit.setText(KEY)

    _save(qtbot, dialog)

    assert dialog.forget_key_button.isEnabled()
    assert not dialog.forget_youtube_button.isEnabled()


def test_forget_key_is_disabled_again_once_the_key_is_forgotten(qtbot, settings, keys):
    keys.set(YOUTUBE_KEY, YT_KEY)
    dialog = SettingsDialog(settings, keys)
    qtbot.addWidget(dialog)
    assert dialog.forget_youtube_button.isEnabled()

    qtbot.mouseClick(dialog.forget_youtube_button, Qt.MouseButton.LeftButton)

    assert not dialog.forget_youtube_button.isEnabled()


def _provider_entries_fit(dialog: SettingsDialog) -> list[str]:
    """The provider entries wider than the combo's text area, at its current width."""
    combo = dialog.provider_combo
    metrics = QFontMetrics(combo.font())
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    return [combo.itemText(i) for i in range(combo.count())
            if metrics.horizontalAdvance(combo.itemText(i)) > field.width()]


def test_every_provider_entry_fits_the_combo_when_the_dialog_is_as_narrow_as_it_goes(
        qtbot, dialog):
    qtbot.waitExposed(dialog)
    dialog.resize(1, dialog.height())
    qtbot.waitUntil(lambda: dialog.width() == dialog.minimumSizeHint().width())

    assert _provider_entries_fit(dialog) == []


def test_provider_entries_still_fit_after_the_font_grows(qtbot, dialog):
    """Zoom changes the font after the first show: the combo must follow it."""
    qtbot.waitExposed(dialog)
    font = QFont(dialog.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    dialog.setFont(font)
    dialog.resize(1, dialog.height())
    qtbot.waitUntil(lambda: dialog.width() == dialog.minimumSizeHint().width())

    assert _provider_entries_fit(dialog) == []


def test_the_calls_at_once_limit_is_saved_and_offered_to_sessions(qtbot, dialog, settings, keys):
    from roundtable_desktop.app import choose_client

    dialog.parallel_spin.setValue(7)
    _save(qtbot, dialog)
    assert AppSettings().model_settings().parallel_calls == 7
    assert choose_client(settings, keys).parallel == 7


def test_the_offline_seed_is_saved_and_seeds_the_offline_model(qtbot, dialog, settings, keys):
    from roundtable_desktop.app import choose_client

    dialog.seed_spin.setValue(42)
    _save(qtbot, dialog)
    assert AppSettings().model_settings().offline_seed == 42
    assert choose_client(settings, keys).client.seed == 42


@pytest.mark.parametrize("stored", ["junk", "inf", "-5", "1e40"])
def test_a_stored_seed_that_is_not_a_seed_reads_as_a_seed(settings, stored):
    settings.set_value("model/offline_seed", stored)
    assert 0 <= settings.model_settings().offline_seed <= 2**31 - 1
