"""The settings dialog: provider preset, base URL, model, API keys, the offline model's
seed (for new sessions: a stored session keeps its own), the MCP bridge URL and the MCP
servers (mcp_servers_dialog.py: their environment values go to the keyring too).

Keys go only to the OS keyring through KeyStore (llm/keys.py), never to the settings
file; the dialog says which keyring holds them, or that none is usable and keys are kept
in memory for this run only. Key fields start empty (a stored key is never shown) and
an empty field keeps the stored key; "Forget key" is enabled only while a key is stored
(the keyring or memory, not the environment, which it cannot forget). The provider list
is as wide as its longest entry at the current font, zoom included. Test connection
sends one 1-token request with the values in the form, asynchronously
(asyncio.ensure_future, no blocking), and says what happened in plain words. Open it
with `open()`; never `exec()` it inside a coroutine.
Must not write keys anywhere but KeyStore, and never show a key in a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.llm.client import Finish
from roundtable_desktop.llm.errors import (
    AuthError,
    CallTimeout,
    ConfigError,
    LLMError,
    RateLimited,
    TransportError,
)
from roundtable_desktop.llm.keys import LLM_KEY, X_KEY, YOUTUBE_KEY, KeyStore
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.llm.providers import MAX_SEED, PRESETS, ModelSettings
from roundtable_desktop.sources.endpoints import ENV_VARS, X_API, url_problem
from roundtable_desktop.sources.mcp_model import DEFAULT_MCP_URL
from roundtable_desktop.ui.dialogs.mcp_servers_dialog import McpServersPanel
from roundtable_desktop.ui.screen_fit import fit_to_screen, scrolling_body
from roundtable_desktop.ui.settings_store import AppSettings

TEST_DEADLINE_S = 30.0


async def check_connection(settings: ModelSettings, api_key: str | None) -> str:
    """Send one tiny request; a plain sentence about what happened (never raises)."""
    if settings.provider == "offline" or not settings.base_url:
        return "The offline model needs no connection: it answers on this computer."
    client = OpenAICompatClient(
        settings.base_url,
        api_key,
        connect_timeout=min(settings.connect_timeout_s, 10.0),
        read_timeout=min(settings.read_timeout_s, TEST_DEADLINE_S),
        deadline=TEST_DEADLINE_S,
        max_retries=0,
    )
    request = ChatRequest(
        model=settings.model,
        messages=[ChatMessage(role="user", content="Reply with the single word OK.")],
        max_tokens=1,
    )
    started = time.perf_counter()
    finished = False
    try:
        # Read the stream to its end (Finish is last) so every connection closes cleanly.
        async with contextlib.aclosing(client.stream(request)) as items:
            async for item in items:
                finished = finished or isinstance(item, Finish)
    except LLMError as exc:
        return describe_failure(exc, client.host, settings.base_url)
    finally:
        await client.aclose()
    ms = (time.perf_counter() - started) * 1000
    if not finished:
        return f"{client.host} answered, but the reply ended before it was complete."
    return f"OK: {client.host} answered in {ms:.0f} ms with model {settings.model}."


def describe_failure(exc: LLMError, host: str, base_url: str) -> str:
    if isinstance(exc, AuthError):
        return (f"The key was rejected ({exc.status}): {host} did not accept it. "
                "Paste a valid API key and test again.")
    if isinstance(exc, TransportError):
        return f"Could not connect to {base_url}. {exc.message}"
    if isinstance(exc, CallTimeout):
        return f"{host} did not answer in time. {exc.message}"
    if isinstance(exc, RateLimited):
        return f"{host} is rate limiting (429); the key was accepted. Try again in a moment."
    if isinstance(exc, ConfigError):
        return exc.message
    return f"The test failed: {exc.message}"


class SettingsDialog(QDialog):
    """Non-modal-safe settings editor; emits `saved(message)` after saving."""

    saved = Signal(str)

    def __init__(
        self, settings: AppSettings, keys: KeyStore, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        fit_to_screen(self, 760, 720)
        self._settings = settings
        self._keys = keys
        self._test_task: asyncio.Future[str] | None = None
        self._loading = True

        current = settings.model_settings()
        self.provider_combo = QComboBox()
        # As wide as the longest entry at the current font, which zoom changes after the
        # first show; the size hint is the minimum because QComboBox keeps its minimum
        # size hint from the first font.
        self.provider_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        policy = self.provider_combo.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Minimum)
        self.provider_combo.setSizePolicy(policy)
        for preset in PRESETS.values():
            self.provider_combo.addItem(preset.label, preset.id)
        self.base_url_edit = QLineEdit(current.base_url)
        self.base_url_edit.setObjectName("baseUrl")
        self.model_edit = QLineEdit(current.model)
        self.model_edit.setObjectName("model")
        self.api_key_edit = _secret_edit("apiKey")
        self.forget_key_button = QPushButton("Forget key")
        self.youtube_key_edit = _secret_edit("youtubeKey")
        self.forget_youtube_button = QPushButton("Forget key")
        # The persona builder reads an X account's posts with it
        # (kinds/debate/persona_build/sources/x.py).
        self.x_token_edit = _secret_edit("xBearerToken")
        self.forget_x_button = QPushButton("Forget key")
        self.x_base_url_edit = QLineEdit(settings.x_base_url)
        self.x_base_url_edit.setObjectName("xBaseUrl")
        self.x_base_url_edit.setPlaceholderText("X's own (a proxy or mirror goes here)")
        self.x_base_url_edit.setToolTip(
            f"Where persona cards read X from; {ENV_VARS[X_API]} overrides it.")
        self.parallel_spin = QSpinBox()
        self.parallel_spin.setObjectName("parallelCalls")
        self.parallel_spin.setRange(1, 32)
        self.parallel_spin.setValue(current.parallel_calls)
        self.parallel_spin.setToolTip(
            "How many model calls one session may send at once (a debate round asks every "
            "agent together). Lower it if the provider rate-limits you.")
        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("offlineSeed")
        self.seed_spin.setRange(0, MAX_SEED)
        self.seed_spin.setValue(current.offline_seed)
        self.seed_spin.setToolTip(
            "The offline model's seed for new sessions: the same seed plays the same "
            "session again, another seed plays another one. A saved session keeps the seed "
            "it was made with.")
        self.mcp_url_edit = QLineEdit(settings.mcp_url)
        self.mcp_url_edit.setObjectName("mcpUrl")
        self.mcp_url_edit.setPlaceholderText(DEFAULT_MCP_URL)

        self.keyring_label = QLabel()
        self.keyring_label.setObjectName("keyringStatus")
        self.keyring_label.setWordWrap(True)
        self.keyring_label.setTextFormat(Qt.TextFormat.PlainText)
        self.test_button = QPushButton("Test connection")
        self.test_button.setObjectName("testConnection")
        self.test_label = QLabel()
        self.test_label.setObjectName("testResult")
        self.test_label.setWordWrap(True)
        self.test_label.setTextFormat(Qt.TextFormat.PlainText)
        self.test_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label = QLabel()
        self.error_label.setObjectName("settingsError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet("color: #c62828;")

        model_form = QFormLayout()
        model_form.addRow("Provider", self.provider_combo)
        model_form.addRow("Base URL", self.base_url_edit)
        model_form.addRow("Model", self.model_edit)
        model_form.addRow("API key", _row(self.api_key_edit, self.forget_key_button))
        model_form.addRow("Calls at once", self.parallel_spin)
        model_form.addRow("Offline seed", self.seed_spin)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_label, 1)
        model_form.addRow("", test_row)
        model_box = QGroupBox("Model provider")
        model_box.setLayout(model_form)

        sources_form = QFormLayout()
        sources_form.addRow("YouTube Data API key",
                            _row(self.youtube_key_edit, self.forget_youtube_button))
        sources_form.addRow("MCP bridge URL", self.mcp_url_edit)
        sources_form.addRow("X API bearer token (persona cards)",
                            _row(self.x_token_edit, self.forget_x_button))
        sources_form.addRow("X API address", self.x_base_url_edit)
        sources_box = QGroupBox("Sources")
        sources_box.setLayout(sources_form)

        self.mcp_servers = McpServersPanel(settings, keys, self)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._on_save_clicked)
        buttons.rejected.connect(self.reject)

        # The fields scroll on a short screen; the messages and the buttons stay in view.
        body = QWidget()
        body.setObjectName("settingsBody")
        fields = QVBoxLayout(body)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addWidget(model_box)
        fields.addWidget(sources_box)
        fields.addWidget(self.mcp_servers, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(scrolling_body(body), 1)
        layout.addWidget(self.keyring_label)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

        self.provider_combo.currentIndexChanged.connect(self._on_provider_changed)
        self.test_button.clicked.connect(self._on_test_clicked)
        self.forget_key_button.clicked.connect(lambda: self._forget(LLM_KEY))
        self.forget_youtube_button.clicked.connect(lambda: self._forget(YOUTUBE_KEY))
        self.forget_x_button.clicked.connect(lambda: self._forget(X_KEY))
        self.finished.connect(self._on_finished)

        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(current.provider)))
        self._loading = False
        self._update_fields()
        self._update_key_hints()

    # -- reading --------------------------------------------------------------------------
    def form_settings(self) -> ModelSettings:
        """The model settings as the form says, keeping the non-form fields."""
        base = self._settings.model_settings()
        return base.model_copy(update={
            "provider": self.provider_combo.currentData(),
            "base_url": self.base_url_edit.text().strip(),
            "model": self.model_edit.text().strip(),
            "parallel_calls": self.parallel_spin.value(),
            "offline_seed": self.seed_spin.value(),
        })

    def keyring_status(self) -> str:
        return self.keyring_label.text()

    # -- slots ----------------------------------------------------------------------------
    def _on_provider_changed(self, index: int) -> None:
        if self._loading:
            return
        preset = PRESETS.get(self.provider_combo.currentData())
        if preset is not None:
            self.base_url_edit.setText(preset.base_url)
            self.model_edit.setText(preset.model)
        self.test_label.clear()
        self._update_fields()

    def _update_fields(self) -> None:
        preset = PRESETS.get(self.provider_combo.currentData())
        offline = preset is None or preset.id == "offline"
        self.base_url_edit.setEnabled(not offline)
        self.model_edit.setEnabled(not offline)
        self.api_key_edit.setEnabled(not offline)

    def _key_rows(self) -> list[tuple[QLineEdit, QPushButton, str, str]]:
        """Each key's field, its Forget button, its keyring name and what it is called."""
        return [(self.api_key_edit, self.forget_key_button, LLM_KEY, "API key"),
                (self.youtube_key_edit, self.forget_youtube_button, YOUTUBE_KEY, "YouTube key"),
                (self.x_token_edit, self.forget_x_button, X_KEY, "X bearer token")]

    def _update_key_hints(self) -> None:
        for edit, forget, name, _ in self._key_rows():
            stored = self._keys.get(name, env=False) is not None
            edit.setPlaceholderText(
                "A key is stored; type a new one to replace it" if stored else "No key set"
            )
            forget.setEnabled(stored)
            forget.setToolTip("" if stored else "No key is stored.")
        self.keyring_label.setText(self._keys.status())

    def _forget(self, name: str) -> None:
        self._keys.delete(name)
        for edit, _, row_name, _ in self._key_rows():
            if row_name == name:
                edit.clear()
        self._update_key_hints()

    def _on_test_clicked(self) -> None:
        if self._test_task is not None and not self._test_task.done():
            return
        settings = self.form_settings()
        key = self.api_key_edit.text().strip() or self._keys.get(LLM_KEY)
        self.test_label.setText("Testing…")
        self.test_button.setEnabled(False)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.test_label.setText("Cannot test now: the application's event loop is not running.")
            self.test_button.setEnabled(True)
            return
        self._test_task = asyncio.ensure_future(check_connection(settings, key))
        self._test_task.add_done_callback(self._on_test_done)

    def _on_test_done(self, task: asyncio.Future[str]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        message = (f"The test failed unexpectedly: {type(error).__name__}." if error
                   else task.result())
        self.test_label.setText(message)
        self.test_button.setEnabled(True)

    def test_task(self) -> asyncio.Future[str] | None:
        return self._test_task

    def _on_save_clicked(self) -> None:
        settings = self.form_settings()
        if settings.provider != "offline" and not settings.base_url.startswith(
            ("http://", "https://")
        ):
            self.error_label.setText("The base URL must start with http:// or https://.")
            return
        if settings.provider != "offline" and not settings.model:
            self.error_label.setText("Name the model to use (for example fireworks/gpt-oss-20b).")
            return
        mcp = self.mcp_url_edit.text().strip() or DEFAULT_MCP_URL
        if not mcp.startswith(("http://", "https://")):
            self.error_label.setText("The MCP bridge URL must start with http:// or https://.")
            return
        x_base_url = self.x_base_url_edit.text().strip()
        x_problem = url_problem(x_base_url) if x_base_url else None
        if x_problem is not None:
            self.error_label.setText(f"The X API address {x_problem}.")
            return
        problem = self.mcp_servers.problem()
        if problem is not None:
            self.error_label.setText(problem)
            return
        self._settings.set_model_settings(settings)
        self._settings.mcp_url = mcp
        self._settings.x_base_url = x_base_url
        notes: list[str] = []
        for edit, _, name, label in self._key_rows():
            value = edit.text().strip()
            if not value:
                continue
            in_keyring = self._keys.set(name, value)
            edit.clear()
            notes.append(f"The {label} is in the OS keyring." if in_keyring else
                         f"The {label} is kept in memory for this run only (no usable keyring).")
        notes += self.mcp_servers.save()
        self._update_key_hints()
        message = " ".join(["Settings saved.", *notes])
        self.error_label.clear()
        self.saved.emit(message)
        self.accept()

    def _on_finished(self, result: int) -> None:
        if self._test_task is not None and not self._test_task.done():
            self._test_task.cancel()


def _secret_edit(name: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(name)
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setClearButtonEnabled(True)
    return edit


def _row(edit: QLineEdit, button: QPushButton) -> QWidget:
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return box
