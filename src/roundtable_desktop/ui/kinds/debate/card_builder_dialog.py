"""The card builder: make a custom persona card from one source, in the window.

The user names the card (name, handle), picks one source (a feed URL or file, a folder
of text/Markdown files, or excerpts pasted here: paragraphs split by blank lines, a last
line that is a URL being that excerpt's source), the deck it goes to (one of their own
decks, or a new one) and the deck's topic, and presses Build. The persona builder
(kinds/debate/persona_build/pipeline.py) reads the source and makes its nine calls
through the live debate session, so the recorder keeps them and the Calls dock shows
them; each call's step is marked in the dialog as it starts and ends. On success the
card is in the deck (written by the builder to the user's decks folder) and
`cardBuilt(deck, card_id)` tells the Cards dock, and the dialog offers "Add to the hand"
(`addToHand(deck, card_id)`: the dock adds it to the hand it holds, whatever its deck);
on failure the reason is shown and nothing is added (the builder writes a contract only
once it validates). Cancel cancels the build's calls. Bundled decks are read-only
resources: new cards always go to the user's decks. What is not a widget (the form's
checks, the deck config, the excerpts file's text, the user's decks) is in
debate_card_source.py. Open it with `open()`; must hold no engine logic beyond building
the config."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.kinds.debate.deck import user_decks_dir
from roundtable_desktop.kinds.debate.persona_build.config import parse_deck_config
from roundtable_desktop.kinds.debate.persona_build.pipeline import (
    STEPS,
    BuildProgress,
    BuildReport,
    build_deck,
)
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import shown_state
from roundtable_desktop.ui.kinds.debate.card_source import (
    DEFAULT_DECK,
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    SOURCES,
    card_deck_data,
    excerpts_json,
    form_refusal,
    step_title,
    user_deck,
    user_deck_names,
)
from roundtable_desktop.ui.window.session_runner import SessionRunner


class DebateCardBuilderDialog(QDialog):
    cardBuilt = Signal(str, str)  # deck name, card id
    addToHand = Signal(str, str)  # deck name, card id: the user took the offer
    buildEnded = Signal()  # built, failed or cancelled: the dialog may be deleted now

    def __init__(self, runner: SessionRunner | None, bridge: EngineBridge,
                 parent: QWidget | None = None, *, deck: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("debateCardBuilderDialog")
        self.setWindowTitle("New card")
        self.runner, self.bridge = runner, bridge
        self._task: asyncio.Task[Any] | None = None
        self._report: BuildReport | None = None
        self._building = False

        self.name = QLineEdit()
        self.name.setObjectName("cardBuilderName")
        self.name.setPlaceholderText("The persona's name, e.g. Ada Brennan")
        self.handle = QLineEdit()
        self.handle.setObjectName("cardBuilderHandle")
        self.handle.setPlaceholderText("@handle")
        self.deck = QComboBox()
        self.deck.setObjectName("cardBuilderDeck")
        self.deck.setEditable(True)
        self.deck.setToolTip("One of your decks, or a new deck's name (a-z, 0-9, -). "
                             f"Your decks are in {user_decks_dir()}.")
        self.topic = QLineEdit()
        self.topic.setObjectName("cardBuilderTopic")
        self.topic.setPlaceholderText("The deck's topic, as a question")
        self.source_group = QButtonGroup(self)
        source_row = QHBoxLayout()
        for index, (_key, label) in enumerate(SOURCES):
            button = QRadioButton(label)
            self.source_group.addButton(button, index)
            source_row.addWidget(button)
        source_row.addStretch(1)
        self.feed = QLineEdit()
        self.feed.setObjectName("cardBuilderFeed")
        self.feed.setPlaceholderText("https://example.org/feed.xml or a file")
        self.folder = QLineEdit()
        self.folder.setObjectName("cardBuilderFolder")
        self.folder.setPlaceholderText("A folder of .txt / .md files")
        self.pasted = QPlainTextEdit()
        self.pasted.setObjectName("cardBuilderPasted")
        self.pasted.setPlaceholderText(
            "Paste 10 or more excerpts, one paragraph each, separated by a blank line.\n"
            "A paragraph's last line may be its source's URL.")
        self.sources = QStackedWidget()
        self.sources.addWidget(_with_browse(self.feed, self._on_browse_feed_clicked))
        self.sources.addWidget(_with_browse(self.folder, self._on_browse_folder_clicked))
        self.sources.addWidget(self.pasted)
        self.source_group.idClicked.connect(self.sources.setCurrentIndex)
        self.source_group.button(0).setChecked(True)

        self.steps = QListWidget()
        self.steps.setObjectName("cardBuilderSteps")
        self.progress = QProgressBar()
        self.progress.setObjectName("cardBuilderProgress")
        self.progress.setRange(0, len(STEPS))
        self.progress.setFormat("%v of %m calls")
        self.status = QLabel()
        self.status.setObjectName("cardBuilderStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.build_button = QPushButton("&Build")
        self.build_button.setObjectName("cardBuilderBuild")
        self.build_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cardBuilderCancel")
        self.add_to_hand_button = QPushButton("&Add to the hand")
        self.add_to_hand_button.setObjectName("cardBuilderAddToHand")
        self.add_to_hand_button.setToolTip("Put the new card in the hand you are building, "
                                           "beside the cards of other decks already there.")
        self.add_to_hand_button.hide()  # offered once a card is built
        self.add_to_hand_button.clicked.connect(self._on_add_to_hand_clicked)
        self._built: tuple[str, str] | None = None
        self.build_button.clicked.connect(self.build)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)

        form = QFormLayout()
        form.addRow("&Name", self.name)
        form.addRow("&Handle", self.handle)
        form.addRow("&Deck", self.deck)
        form.addRow("Deck &topic", self.topic)
        form.addRow("Source", source_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.add_to_hand_button)
        buttons.addWidget(self.build_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.sources, 1)  # the pasted excerpts take the spare height
        layout.addWidget(QLabel("The nine calls (recorded with the debate; see the Calls "
                                "dock):"))
        layout.addWidget(self.steps)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self._fill_decks(deck)
        self.deck.currentTextChanged.connect(self._on_deck_text_changed)
        self._reset_steps()
        self._set_building(False)
        rows = self.steps.sizeHintForRow(0) * len(STEPS) + 2 * self.steps.frameWidth() + 4
        self.steps.setFixedHeight(rows)  # all nine steps in sight, no scrolling
        self.pasted.setMinimumHeight(self.fontMetrics().lineSpacing() * 5)
        self.resize(760, 600)

    # -- reading (tests) ------------------------------------------------------------------
    @property
    def building(self) -> bool:
        """From Build until the dialog has shown how the build ended."""
        return self._building

    @property
    def report(self) -> BuildReport | None:
        return self._report

    def step_marks(self) -> list[str]:
        return [self.steps.item(i).text()[:1] for i in range(self.steps.count())]

    def status_text(self) -> str:
        return self.status.text()

    def choose_source(self, key: str) -> None:
        index = next(i for i, (k, _) in enumerate(SOURCES) if k == key)
        self.source_group.button(index).setChecked(True)
        self.sources.setCurrentIndex(index)

    # -- the form -----------------------------------------------------------------------------
    def _fill_decks(self, wanted: str) -> None:
        names = user_deck_names()
        self.deck.addItems(names or [DEFAULT_DECK])
        self.deck.setCurrentText(wanted if wanted in names else (names or [DEFAULT_DECK])[0])
        self._on_deck_text_changed(self.deck.currentText())

    def _on_deck_text_changed(self, name: str) -> None:
        deck = user_deck(name)
        if deck is not None and deck.topic_hint:
            self.topic.setText(deck.topic_hint)
        elif not self.topic.text():
            state = shown_state(self.bridge, DebateState)
            self.topic.setText(state.topic if state is not None else "")
        self.topic.setCursorPosition(0)

    def _on_browse_feed_clicked(self) -> None:
        self._browse(QFileDialog.FileMode.ExistingFile, self.feed, "Choose a feed file")

    def _on_browse_folder_clicked(self) -> None:
        self._browse(QFileDialog.FileMode.Directory, self.folder, "Choose a folder of notes")

    def _browse(self, mode: QFileDialog.FileMode, target: QLineEdit, title: str) -> None:
        dialog = QFileDialog(self, title)
        dialog.setFileMode(mode)
        dialog.fileSelected.connect(target.setText)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def source_key(self) -> str:
        return SOURCES[max(0, self.source_group.checkedId())][0]

    # -- building -----------------------------------------------------------------------------
    def why_not(self) -> str:
        """Why Build cannot start now ("" when it can)."""
        session = None if self.bridge.read_only else self.bridge.session()
        if session is None or not isinstance(getattr(session, "state", None), DebateState):
            return "Cards are built through a live debate: start one, or leave the replay."
        if self.runner is not None and self.runner.busy:
            return "A step is running: wait for it or press Stop."
        key = self.source_key()
        source = self.pasted.toPlainText() if key == "pasted" else \
            (self.feed if key == "feed" else self.folder).text()
        return form_refusal(name=self.name.text(), handle=self.handle.text(),
                            topic=self.topic.text(), source_key=key, source=source)

    def build(self) -> bool:
        """Start the build; False with the reason shown when it cannot start."""
        if self.building:
            return False
        why = self.why_not()
        if why:
            self.status.setText(why)
            return False
        self._reset_steps()
        self._report = None
        self._built = None
        self.add_to_hand_button.hide()
        self._set_building(True)
        self.status.setText("Reading the source…")
        self._task = asyncio.ensure_future(self._build())
        self._task.add_done_callback(self._on_task_done)
        return True

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _build(self) -> None:
        session = self.bridge.session()
        assert session is not None, "the card builder builds for the session shown"
        deck = self.deck.currentText().strip()
        with tempfile.TemporaryDirectory(prefix="roundtable-card-") as scratch:
            data = card_deck_data(deck, name=self.name.text(), handle=self.handle.text(),
                                  topic=self.topic.text(), sources=self._sources(Path(scratch)))
            try:
                config = parse_deck_config(data, folder=scratch, shown="the card")
            except Refusal as exc:
                self._finish_failed(exc.message)
                return
            report = await build_deck(session, config, user_decks_dir(),
                                      model=str(getattr(session, "model", "offline")),
                                      provider=str(getattr(session, "provider", "offline")),
                                      progress=self._on_build_progress)
        self._report = report
        if not shiboken6.isValid(self):
            return
        result = report.personas[0] if report.personas else None
        if result is None or not result.ok:
            self._finish_failed(result.reason if result is not None else "Nothing was built.")
            return
        self.progress.setValue(len(STEPS))
        kept = f" The previous version is kept in {Path(result.previous_contract).parent}." \
            if result.previous_contract else ""
        self.status.setText(f"{result.name} is in the {deck} deck: {result.anchors} anchors "
                            f"from {result.items_kept} of {result.items_read} items.{kept} "
                            "Add it to the hand?")
        self._built = (deck, result.id)
        self.add_to_hand_button.setEnabled(True)
        self.add_to_hand_button.show()
        self.add_to_hand_button.setDefault(True)
        self.cardBuilt.emit(deck, result.id)

    def _on_add_to_hand_clicked(self) -> None:
        if self._built is None:
            return
        self.addToHand.emit(*self._built)
        self.add_to_hand_button.setEnabled(False)
        self.add_to_hand_button.setDefault(False)
        self.status.setText(f"{self.status.text().removesuffix(' Add it to the hand?')} "
                            "It is in the hand.")

    def _sources(self, scratch: Path) -> dict[str, str]:
        key = self.source_key()
        if key == "feed":
            return {"feed": self.feed.text().strip()}
        if key == "folder":
            return {"folder": self.folder.text().strip()}
        path = scratch / "excerpts.json"
        path.write_text(excerpts_json(self.pasted.toPlainText()), encoding="utf-8")
        return {"manual": str(path)}

    def _on_build_progress(self, step: BuildProgress) -> None:
        if not shiboken6.isValid(self):
            return  # the window went while the build ran
        if step.stage == "call" and 1 <= step.step <= len(STEPS):
            for i in range(step.step - 1):
                self._mark(i, DONE)
            self._mark(step.step - 1, RUNNING, step.label)
            self.progress.setValue(step.step - 1)
            self.status.setText(f"Call {step.step} of {step.total}: {step.label}")
        elif step.stage == "fetch":
            self.status.setText(f"Source: {step.detail}")
        elif step.stage in ("write", "done"):
            for i in range(len(STEPS)):
                self._mark(i, DONE)
        elif step.stage == "failed":
            self._mark_running_as(FAILED)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        if not shiboken6.isValid(self):
            return
        self._set_building(False)
        self.buildEnded.emit()
        if task.cancelled():
            self._mark_running_as(FAILED)
            self.status.setText("Cancelled: nothing was added to the deck.")
            return
        exc = task.exception()
        if isinstance(exc, Refusal):
            self._finish_failed(exc.message)
        elif exc is not None:
            self._finish_failed(f"The build stopped: {type(exc).__name__}: {exc}")

    def _finish_failed(self, reason: str) -> None:
        self._mark_running_as(FAILED)
        self.status.setText(f"Not built: {reason} Nothing was added to the deck.")

    # -- the steps list ---------------------------------------------------------------------------
    def _reset_steps(self) -> None:
        self.steps.clear()
        for n, step in enumerate(STEPS, start=1):
            self.steps.addItem(QListWidgetItem(f"{PENDING} {n}. {step_title(step)}"))
        self.progress.setValue(0)

    def _mark(self, index: int, mark: str, label: str = "") -> None:
        item = self.steps.item(index)
        title = f"{index + 1}. {step_title(STEPS[index])}"
        item.setText(f"{mark} {title}{f'  ({label})' if label else ''}"
                     if mark == RUNNING else f"{mark} {title}")

    def _mark_running_as(self, mark: str) -> None:
        for i in range(self.steps.count()):
            if self.steps.item(i).text().startswith(RUNNING):
                self._mark(i, mark)

    def _set_building(self, on: bool) -> None:
        self._building = on
        self.build_button.setEnabled(not on)
        self.cancel_button.setText("Cancel build" if on else "Close")
        for widget in (self.name, self.handle, self.deck, self.topic, self.sources):
            widget.setEnabled(not on)
        for button in self.source_group.buttons():
            button.setEnabled(not on)

    def _on_cancel_clicked(self) -> None:
        if self.building:
            self.cancel()
        else:
            self.reject()

    def reject(self) -> None:
        self.cancel()  # closing the dialog never leaves a build running
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        super().closeEvent(event)


def _with_browse(edit: QLineEdit, slot: Any) -> QWidget:
    """The path and its Browse… button at the top of the source's page."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    button = QPushButton("Browse…")
    button.clicked.connect(slot)
    row.addWidget(button)
    column.addLayout(row)
    column.addStretch(1)
    return box
