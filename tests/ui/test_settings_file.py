"""The settings file (issue 9, case 12): a damaged settings.ini is not rewritten silently;
a copy is kept as settings.ini.bad and the caller gets a warning to show."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QByteArray

from roundtable_desktop.llm.providers import ModelSettings
from roundtable_desktop.ui.settings_store import AppSettings

GARBAGE = {
    "binary": bytes(range(256)) * 4,
    "text": b"these are my notes, not settings {{{ ]]]\nmore notes\n",
    "cut-section": b"[model\nprovider=offline\n",
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_a_damaged_settings_file_is_kept_as_bad_and_reported(tmp_path, garbage):
    path = tmp_path / "settings.ini"
    path.write_bytes(garbage)
    settings = AppSettings(path)
    assert settings.warning is not None
    assert str(path) in settings.warning and "settings.ini.bad" in settings.warning
    assert (tmp_path / "settings.ini.bad").read_bytes() == garbage
    assert settings.model_settings() == ModelSettings()


def test_settings_saved_after_a_damaged_file_read_back_cleanly(tmp_path):
    path = tmp_path / "settings.ini"
    path.write_bytes(GARBAGE["binary"])
    AppSettings(path).set_model_settings(ModelSettings(model="kept-model"))
    again = AppSettings(path)
    assert again.warning is None and again.model_settings().model == "kept-model"


def test_a_settings_file_the_app_wrote_opens_with_no_warning(tmp_path):
    path = tmp_path / "settings.ini"
    settings = AppSettings(path)
    settings.set_model_settings(ModelSettings(model="ünïcode/model"))
    settings.set_value("window/geometry", QByteArray(bytes(range(64))))
    settings.set_value("window/docks", ["calls", "transcript"])
    settings.mcp_url = "http://127.0.0.1:8081/mcp"
    settings.sync()
    again = AppSettings(path)
    assert again.warning is None and not (tmp_path / "settings.ini.bad").exists()
    assert bytes(again.value("window/geometry").data()) == bytes(range(64))


def test_no_settings_file_yet_is_no_warning(tmp_path):
    assert AppSettings(tmp_path / "settings.ini").warning is None
